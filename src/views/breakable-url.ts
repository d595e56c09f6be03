import { escapeHtml } from './render-view.js'

/**
 * A URL as HTML that wraps after its scheme, after its host and at each `/` of its path, never
 * inside the host: the host sits in one `<span class="host">` the stylesheet keeps on one line (a
 * host wider than the screen scrolls inside its box), so a narrow screen never shows half a host.
 */
export function breakableUrl(url: string): string {
  const parsed = URL.parse(url)
  if (parsed === null || parsed.origin === 'null') return escapeHtml(url)
  const { origin, protocol } = parsed
  const parts = url.slice(origin.length).split('/').map(escapeHtml)
  const host = origin.slice(protocol.length + 2)
  return `${escapeHtml(protocol)}//<wbr><span class="host">${escapeHtml(host)}</span><wbr>${parts.join('/<wbr>')}`
}
