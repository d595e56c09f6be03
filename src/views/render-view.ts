import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

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

/**
 * Renders `views/<name>.html` inside `views/layout.html`. `{{x}}` is escaped; `{{{x}}}` takes a
 * fragment the caller built from escaped parts. The authorization server's pages and the login
 * helper's loopback page (`callback`) share the layout and its stylesheet.
 */
export function renderView(name: 'login' | 'consent' | 'error' | 'logout' | 'logged-out' | 'callback' | 'home', title: string, values: Record<string, unknown>): string {
  const body = fill(template(name), values)
  return fill(template('layout'), { title, serverName: values['serverName'] ?? 'mcp-auth', body })
}

/** Security headers for every page we render. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
}
