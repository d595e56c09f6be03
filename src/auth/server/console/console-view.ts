import type { Context } from 'koa'
import type { PageBranding } from '../../../views/branding.js'
import { consolePageHeaders, escapeHtml, renderView } from '../../../views/render-view.js'

/** Escapes text for the console's HTML (the only way a value reaches a page). */
export const h = escapeHtml

/** One console page, in the layout of every page of the server. */
export interface ConsolePage {
  status?: number
  title: string
  /** The navigation fragment (built by the surface), or none (one-time pages). */
  nav?: string
  /** A message above the content (built from escaped parts). */
  notice?: string
  /** The page's body, built from escaped parts. */
  content: string
}

/** Answers with a console page: the layout, its strict headers (CSP with `form-action 'self'`, no framing, no store). */
export function sendPage(ctx: Context, page: ConsolePage, branding?: PageBranding): void {
  ctx.status = page.status ?? 200
  ctx.set(consolePageHeaders(branding))
  ctx.type = 'html'
  ctx.body = renderView('console', page.title, { heading: page.title, nav: page.nav ?? '', notice: page.notice ?? '', content: page.content }, branding, { wide: true })
}

/** A form of one button (POST), with the CSRF token and any hidden fields. */
export function postButton(action: string, label: string, csrf: string, options: { fields?: Record<string, string>; id?: string; secondary?: boolean } = {}): string {
  const fields = Object.entries(options.fields ?? {})
    .map(([name, value]) => `<input type="hidden" name="${h(name)}" value="${h(value)}">`)
    .join('')
  const id = options.id === undefined ? '' : ` id="${h(options.id)}"`
  return `<form class="inline" method="post" action="${h(action)}"><input type="hidden" name="csrf" value="${h(csrf)}">${fields}<button type="submit" class="${options.secondary === true ? 'secondary' : 'primary'}"${id}>${h(label)}</button></form>`
}

/** A table with a caption and header cells (rows stacked on a phone's width); the cells are fragments built from escaped parts. */
export function table(caption: string, headers: readonly string[], rows: ReadonlyArray<readonly string[]>, empty: string): string {
  if (rows.length === 0) return `<p class="muted">${h(empty)}</p>`
  const head = headers.map((header) => `<th scope="col">${h(header)}</th>`).join('')
  const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('')
  return `<div class="table-wrap"><table class="stack"><caption class="muted">${h(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`
}

/** Epoch seconds (or ms when `ms`) as an ISO 8601 time in a `<time>` element; a dash when unknown. */
export function when(epoch: number | undefined, ms = false): string {
  if (epoch === undefined) return '<span class="muted">–</span>'
  const iso = new Date(ms ? epoch : epoch * 1000).toISOString()
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`
}

/** A notice paragraph (`role="status"`), or an error one (`role="alert"`). */
export function notice(text: string, error = false): string {
  return error ? `<p class="error" role="alert">${h(text)}</p>` : `<p class="notice" role="status">${h(text)}</p>`
}
