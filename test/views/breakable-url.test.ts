/** Issue 28, item 14: a URL on the pages wraps after its scheme, host and each `/`, never inside the host. */
import { describe, expect, it } from 'vitest'
import { breakableUrl } from '../../src/views/breakable-url.js'

describe('breakableUrl', () => {
  it('keeps the host (with its port) in one span and offers breaks after the scheme and each /', () => {
    expect(breakableUrl('https://tools.example.com:8443/mcp/v1')).toBe('https://<wbr><span class="host">tools.example.com:8443</span><wbr>/<wbr>mcp/<wbr>v1')
  })

  it('escapes what it shows', () => {
    expect(breakableUrl('https://example.com/a"b<c>')).toBe('https://<wbr><span class="host">example.com</span><wbr>/<wbr>a&#34;b&#60;c&#62;')
  })

  it('shows a value that is not a URL as escaped text', () => {
    expect(breakableUrl('not a <url>')).toBe('not a &#60;url&#62;')
  })
})
