import { defaults } from '../../../config/defaults.js'
import type { AuditQuery, StoredAuditEvent } from '../../../observe/audit-event.js'
import { auditPage } from '../../../observe/audit-page.js'
import { auditTime } from '../../../observe/audit-time.js'
import type { AdminPage } from './console-deps.js'
import { h, notice, sendPage, table } from './console-view.js'

const settings = defaults.observe.audit
/** Events per page of the console: a screenful, whatever the API's page size. */
const PAGE = 50

const FILTERS = [
  ['user', 'User', 'a username or subject'],
  ['client_id', 'Client', 'a client id'],
  ['type', 'Type', 'sign-in. or token.issued…'],
  ['since', 'Since', '1h, 2d or 2026-11-20T10:00Z'],
  ['until', 'Until', 'the same forms'],
] as const

/** Who did it, as one cell: the person or operator, their client, the way they came. */
function actorCell(event: StoredAuditEvent): string {
  const actor = event.actor
  if (actor === undefined) return '<span class="muted">–</span>'
  const who = actor.username ?? actor.subject ?? (actor.osUser !== undefined ? `${actor.osUser} (operating-system user)` : actor.clientId) ?? ''
  const client = actor.clientId !== undefined && who !== actor.clientId ? ` with <code>${h(actor.clientId)}</code>` : ''
  return `${h(who)}${client}${actor.channel !== undefined ? ` <span class="muted">via ${h(actor.channel)}</span>` : ''}`
}

function detailsCell(event: StoredAuditEvent): string {
  const parts = Object.entries(event.details ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${Array.isArray(value) ? value.join(' ') : String(value)}`)
  if (event.reason !== undefined) parts.unshift(event.reason)
  return h(parts.join('; '))
}

/**
 * GET /admin/audit: the newest events of the audit trail (every node's, on Redis), filtered by
 * user, client, type (or a prefix ending in `.`) and time, a page at a time ("Older events").
 */
export const auditPageView: AdminPage = async (request) => {
  const base = request.deps.surfaces.admin.basePath
  const params = request.ctx.URL.searchParams
  const value = (name: string): string => (params.get(name) ?? '').trim().slice(0, 256)
  const now = Date.now()
  const problems: string[] = []
  const time = (name: 'since' | 'until'): number | undefined => {
    if (value(name) === '') return undefined
    const at = auditTime(value(name), now)
    if (at === undefined) problems.push(`${name === 'since' ? 'Since' : 'Until'} takes 30m, 1h, 2d, 1w or an ISO date-time: ${value(name)} is neither.`)
    return at
  }
  const types = value('type')
    .split(/[\s,]+/)
    .filter((type) => type !== '')
  if (types.some((type) => !/^[a-z][a-z.-]{0,63}$/.test(type))) problems.push('Type takes event types such as token.issued, or prefixes ending in a dot (sign-in.).')
  const since = time('since')
  const until = time('until')
  const query: AuditQuery = {
    limit: Math.min(PAGE, settings.maxQueryLimit),
    ...(value('user') !== '' ? { user: value('user') } : {}),
    ...(value('client_id') !== '' ? { clientId: value('client_id') } : {}),
    ...(types.length > 0 ? { types } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  }
  const trail = request.deps.auditTrail()
  let events: StoredAuditEvent[] = []
  let nextCursor: string | undefined
  if (trail === undefined) problems.push('This server keeps no audit trail.')
  else if (problems.length === 0) {
    try {
      const cursor = value('cursor')
      const page = await auditPage(trail, { ...query, ...(cursor !== '' ? { cursor } : {}) })
      events = page.items
      nextCursor = page.nextCursor
    } catch (error) {
      if (!(error instanceof RangeError)) throw error
      problems.push('That page link is not one this console made: start again from the newest events.')
    }
  }
  const rows = events.map((event) => [
    `<time datetime="${h(event.at)}">${h(event.at.slice(0, 19).replace('T', ' '))} UTC</time>`,
    `<code>${h(event.type)}</code>`,
    event.result === 'success' ? 'success' : `<strong>${h(event.result)}</strong>`,
    actorCell(event),
    h(event.username ?? event.subject ?? ''),
    event.clientId !== undefined ? `<code>${h(event.clientId)}</code>` : '',
    event.resource !== undefined ? `<code>${h(event.resource)}</code>` : '',
    h((event.scopes ?? []).join(' ')),
    h(event.addressGroup ?? ''),
    detailsCell(event),
  ])
  const kept = Object.fromEntries(FILTERS.map(([name]) => [name, value(name)]).filter(([, text]) => text !== ''))
  const older = nextCursor === undefined ? '' : `<p><a href="${h(`${base}/audit?${new URLSearchParams({ ...kept, cursor: nextCursor })}`)}" id="older-events">Older events</a></p>`
  const fields = FILTERS.map(
    ([name, label, hint]) =>
      `<div><label for="audit-${name}">${h(label)}</label><input id="audit-${name}" type="text" name="${name}" value="${h(value(name))}" placeholder="${h(hint)}" autocomplete="off"></div>`,
  ).join('')
  sendPage(
    request.ctx,
    {
      status: problems.length > 0 && trail !== undefined ? 400 : 200,
      title: 'Audit trail',
      nav: request.nav('/audit'),
      notice: problems.map((problem) => notice(problem, true)).join(''),
      content: `<form class="search" method="get" action="${h(`${base}/audit`)}" role="search" id="audit-filter">${fields}
<button type="submit" class="secondary">Filter</button></form>
${table('Security events, newest first', ['Time', 'Event', 'Result', 'By', 'Account', 'Client', 'Resource', 'Scopes', 'From', 'Reason and details'], rows, 'No event matches.')}
${older}
<p class="muted">Also <code>mcp-auth audit</code> (with <code>--follow</code> to watch) and <code>GET /admin/api/audit</code>; docs/operations.md says where the trail is kept and for how long.</p>`,
    },
    request.deps.branding,
  )
}
