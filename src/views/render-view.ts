import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_BRANDING, type PageBranding } from './branding.js'
import { prefersDarkText } from './relative-luminance.js'

/** Where the templates live: `views/` at the package root (from src/ and from dist/ alike). */
const VIEWS_DIR = fileURLToPath(new URL('../../views/', import.meta.url))

const cache = new Map<string, string>()

function template(name: string): string {
  let text = cache.get(name)
  if (text === undefined) {
    text = readFileSync(`${VIEWS_DIR}${name}.html`, 'utf8')
    cache.set(name, text)
  }
  return text
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * One pass over the template: a value is inserted once and never scanned again, so text such as
 * `{{csrf}}` in a client name shows as text instead of being filled in.
 */
function fill(text: string, values: Record<string, unknown>): string {
  return text.replace(/\{\{\{(\w+)\}\}\}|\{\{(\w+)\}\}/g, (_m, raw: string | undefined, escaped: string | undefined) =>
    raw !== undefined ? String(values[raw] ?? '') : escapeHtml(values[escaped!]),
  )
}

/** The layout's branding parts: the colours as CSS custom properties (hex only, validated), the logo. */
function brandValues(branding: PageBranding): Record<string, string> {
  const { primary, background, text } = branding.colors
  // A configured background fixes the page's scheme (light or dark by its luminance), so the
  // browser's own text and form colours stay readable on it whatever the reader's OS prefers.
  const rules = [
    primary !== undefined ? `:root { --accent: ${primary}; --on-accent: ${prefersDarkText(primary) ? '#111' : '#fff'}; }` : '',
    background !== undefined ? `:root { color-scheme: ${prefersDarkText(background) ? 'light' : 'dark'}; } body { background: ${background}; }` : '',
    text !== undefined ? `body { color: ${text}; }` : '',
  ].join('')
  return {
    productName: branding.productName,
    brandStyle: rules === '' ? '' : `<style>${rules}</style>`,
    logo: branding.logoUrl === undefined ? '' : `<img class="logo" src="${escapeHtml(branding.logoUrl)}" alt="" height="28">`,
  }
}

export type ViewName = 'login' | 'consent' | 'error' | 'logout' | 'logged-out' | 'callback' | 'home' | 'console'

/**
 * Renders `views/<name>.html` inside `views/layout.html`. `{{x}}` is escaped; `{{{x}}}` takes a
 * fragment the caller built from escaped parts. The authorization server's pages and the login
 * helper's loopback page (`callback`) share the layout and its stylesheet; `branding` (the
 * operator's product name, logo and colours) goes into the layout of every page.
 */
export function renderView(name: ViewName, title: string, values: Record<string, unknown>, branding: PageBranding = DEFAULT_BRANDING, layout: { wide?: boolean } = {}): string {
  const body = fill(template(name), values)
  return fill(template('layout'), { title, body, mainClass: layout.wide === true ? 'wide' : '', ...brandValues(branding) })
}

/**
 * Security headers for every page we render. The CSP allows images from the logo's origin (or
 * `data:` for an inline logo) and nothing else.
 */
export function pageHeaders(branding: PageBranding = DEFAULT_BRANDING): Readonly<Record<string, string>> {
  const logo = branding.logoUrl
  const img = logo === undefined ? "'none'" : logo.startsWith('data:') ? 'data:' : new URL(logo).origin
  return {
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; img-src ${img}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  }
}

/**
 * Security headers of the console's pages (`/admin`, `/account`): those of every page, and forms
 * may post only to this origin (`form-action 'self'`); the one script they load is a file of ours.
 */
export function consolePageHeaders(branding: PageBranding = DEFAULT_BRANDING): Readonly<Record<string, string>> {
  const headers = pageHeaders(branding)
  return { ...headers, 'content-security-policy': `${headers['content-security-policy']}; form-action 'self'` }
}

/** Security headers of a page without a logo. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = pageHeaders()
