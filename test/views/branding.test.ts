/**
 * Issue 28, item 14: the operator's branding is validated so that nothing from it can inject
 * markup, CSS or a foreign image source, and the page's CSP allows the logo's origin and no more;
 * resources and scopes carry descriptions, validated and looked up as own properties only.
 */
import { describe, expect, it } from 'vitest'
import { describeScope, UNDESCRIBED_SCOPE } from '../../src/auth/server/interactions/describe-scope.js'
import { resolveOptions, resolveResource } from '../../src/auth/server/options.js'
import { defaults } from '../../src/config/defaults.js'
import { resolveBranding } from '../../src/views/branding.js'
import { pageHeaders, renderView } from '../../src/views/render-view.js'

const PNG = 'data:image/png;base64,iVBORw0KGgo='

describe('resolveBranding', () => {
  it('fills in the default product name and no logo or colours', () => {
    expect(resolveBranding(undefined)).toEqual({ productName: defaults.branding.productName, colors: {} })
    expect(resolveBranding({})).toEqual({ productName: defaults.branding.productName, colors: {} })
  })

  it.each([
    ['a named colour', { colors: { primary: 'red' } }, /hex/],
    ['CSS after a colour', { colors: { primary: '#fff; } body { display: none' } }, /hex/],
    ['a four-digit colour', { colors: { text: '#abcd' } }, /hex/],
    ['a javascript: logo', { logoUrl: 'javascript:alert(1)' }, /logoUrl/],
    ['an http logo on a public host', { logoUrl: 'http://cdn.example.com/logo.png' }, /logoUrl/],
    ['a data: logo that is not an image', { logoUrl: 'data:text/html;base64,PHNjcmlwdD4=' }, /logoUrl/],
    ['a data: logo that is not base64', { logoUrl: 'data:image/svg+xml,<svg onload="x()">' }, /logoUrl/],
    ['a data: logo above the size limit', { logoUrl: `data:image/png;base64,${'A'.repeat(defaults.branding.maxLogoDataUriLength)}` }, /logoUrl/],
    ['a logo URL with credentials', { logoUrl: 'https://user:pass@cdn.example.com/logo.png' }, /logoUrl/],
    ['a product name too long', { productName: 'x'.repeat(defaults.branding.maxProductNameLength + 1) }, /productName/],
    ['a product name with a line break', { productName: 'Acme\nsign-in' }, /control characters/],
    ['an unknown key', { font: 'Comic Sans' }, /branding/],
  ])('refuses %s, naming the option', (_label, input, message) => {
    expect(() => resolveBranding(input as never)).toThrow(message)
  })

  it('accepts https logos, http logos on loopback hosts and base64 images', () => {
    expect(resolveBranding({ logoUrl: 'https://cdn.example.com/logo.svg' }).logoUrl).toBe('https://cdn.example.com/logo.svg')
    expect(resolveBranding({ logoUrl: 'http://127.0.0.1:8080/logo.png' }).logoUrl).toBe('http://127.0.0.1:8080/logo.png')
    expect(resolveBranding({ logoUrl: PNG }).logoUrl).toBe(PNG)
  })

  it('is refused at start when the configuration is wrong', () => {
    expect(() => resolveOptions({ branding: { colors: { background: 'url(https://evil.example/x)' } } })).toThrow(/branding\.colors\.background: colours are hex/)
  })
})

describe('the pages in the operator’s branding', () => {
  it('escape the product name in the header and the title', () => {
    const html = renderView('error', 'Error', { error: 'x', description: 'y' }, resolveBranding({ productName: '<script>alert(1)</script>' }))
    expect(html).not.toContain('<script>')
    expect(html).toContain('<title>Error · &#60;script&#62;alert(1)&#60;/script&#62;</title>')
  })

  it('allow images from the logo’s origin only, data: for an inline logo, none without a logo', () => {
    const csp = (logoUrl?: string) => pageHeaders(resolveBranding(logoUrl === undefined ? {} : { logoUrl }))['content-security-policy']
    expect(csp('https://cdn.example.com/brand/logo.svg')).toContain('img-src https://cdn.example.com;')
    expect(csp(PNG)).toContain('img-src data:;')
    expect(csp()).toContain("img-src 'none';")
    expect(csp()).toContain("default-src 'none'")
  })
})

describe('resource and scope descriptions', () => {
  it('are kept on the resolved resource', () => {
    const resource = resolveResource({
      uri: 'https://mcp.example.com/mcp',
      scopes: ['files:read'],
      description: 'The shared drive',
      scopeDescriptions: { 'files:read': 'Read your files' },
    })
    expect(resource).toMatchObject({ description: 'The shared drive', scopeDescriptions: { 'files:read': 'Read your files' } })
    expect(describeScope('files:read', [resource])).toBe('Read your files')
  })

  it('refuse a description of a scope the resource does not offer, and descriptions too long', () => {
    expect(() => resolveResource({ uri: 'https://mcp.example.com/mcp', scopes: ['mcp'], scopeDescriptions: { 'files:read': 'Read your files' } })).toThrow(
      /describe scopes it does not offer: files:read/,
    )
    expect(() => resolveResource({ uri: 'https://mcp.example.com/mcp', description: 'x'.repeat(defaults.branding.maxDescriptionLength + 1) })).toThrow(/description/)
  })

  it('fall back to the built-in texts, then to saying the server did not describe the scope, never to inherited properties', () => {
    const resource = resolveResource({ uri: 'https://mcp.example.com/mcp', scopes: ['mcp', 'constructor', 'toString', '__proto__'] })
    expect(describeScope('mcp', [resource])).toBe(defaults.authServer.scopeDescriptions['mcp'])
    expect(describeScope('offline_access', [resource])).toMatch(/refresh tokens/)
    for (const scope of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(describeScope(scope, [resource])).toBe(UNDESCRIBED_SCOPE)
  })

  it('keep a described scope named like an Object property as the resource’s own text', () => {
    const resource = resolveResource({
      uri: 'https://mcp.example.com/mcp',
      scopes: ['constructor'],
      scopeDescriptions: JSON.parse('{"constructor":"Build things"}') as Record<string, string>,
    })
    expect(describeScope('constructor', [resource])).toBe('Build things')
  })
})

describe('docs/authorization-server.md', () => {
  it('shows a branding configuration the server accepts, as written', async () => {
    const { readFile } = await import('node:fs/promises')
    const doc = await readFile(new URL('../../docs/authorization-server.md', import.meta.url), 'utf8')
    const section = doc.slice(doc.indexOf('### Branding the pages'))
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as Record<string, unknown>
    const resolved = resolveOptions(example)
    expect(resolved.branding).toEqual({
      productName: 'Example Corp sign-in',
      logoUrl: 'https://cdn.example.com/brand/logo.svg',
      colors: { primary: '#0f766e', background: '#f8fafc', text: '#0f172a' },
    })
    expect(resolved.resources[0]).toMatchObject({ description: 'The shared drive', scopeDescriptions: { 'files:read': 'Read your files' } })
    expect(pageHeaders(resolved.branding)['content-security-policy']).toContain('img-src https://cdn.example.com;')
  })
})

describe('colours the operator sets', () => {
  it('keep button text and the page readable: dark text on a light primary, a light scheme on a light background', async () => {
    const { prefersDarkText } = await import('../../src/views/relative-luminance.js')
    expect(prefersDarkText('#fde047')).toBe(true)
    expect(prefersDarkText('#0f766e')).toBe(false)
    expect(prefersDarkText('#fff')).toBe(true)
    expect(prefersDarkText('#000')).toBe(false)
    const light = renderView('error', 'Error', { error: 'x', description: 'y' }, resolveBranding({ colors: { primary: '#fde047', background: '#ffffff' } }))
    expect(light).toContain('--on-accent: #111;')
    expect(light).toContain('color-scheme: light;')
    const dark = renderView('error', 'Error', { error: 'x', description: 'y' }, resolveBranding({ colors: { background: '#111827' } }))
    expect(dark).toContain('color-scheme: dark;')
  })
})
