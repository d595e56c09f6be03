import { access } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { defaults } from '../../config/defaults.js'
import { auditEventOfView, auditEventView, type AuditEventView } from '../../auth/server/admin-api/audit-view.js'
import type { AuditQuery, AuditTrail, StoredAuditEvent } from '../../observe/audit-event.js'
import { auditPage, type AuditPage, type AuditPageQuery } from '../../observe/audit-page.js'
import { FileAuditTrail } from '../../observe/file-audit-trail.js'
import { adminApiClient, SERVER_OPTIONS, serverUsage, type AdminApiClient } from '../admin-api-client.js'
import { ADMIN_OPTIONS, adminTarget, adminUsage } from '../admin-server.js'
import { auditLine } from '../audit-line.js'
import { parseAuditTime } from '../audit-time.js'
import { CLIENT_USAGE } from '../client-auth.js'
import { UsageError, type Command } from '../command.js'
import { INTERRUPTED_EXIT_CODE } from '../interrupt.js'

const settings = defaults.observe.audit

/** Where the events are read: a trail opened here, or a running server's admin API. */
interface AuditSource {
  page(query: AuditPageQuery): Promise<AuditPage>
  follow(query: AuditQuery, onEvent: (event: StoredAuditEvent) => void, signal: AbortSignal): Promise<void>
  close(): Promise<void>
}

export const auditCommand: Command = {
  name: 'audit',
  summary: 'read the audit trail: sign-ins, tokens, administration, tool calls',
  usage: `
Usage: mcp-auth audit [--follow] [--user U] [--client C] [--type T]... [--since T] [--until T]
                      [--limit N] [--json] [WHERE]
WHERE: --server URL [login options]   a running server, through its admin API
       [--data-dir DIR] [--config FILE] [--redis URL] [--redis-prefix P]

Prints the security events of the audit trail, oldest of the selection first, one line each
(time, type, result, then who, which account, client, resource, scopes, address group, reason).
Without --server it reads the data directory's ${settings.file} (and its rotated files) directly,
also while the server runs (reading needs no lock); with Redis (--redis, several nodes) the
deployment's stream, which holds every node's events.

Options:
  --user U         events a user did or that are about them (username or subject)
  --client C       events of a client (as actor or subject)
  --type T         an event type (sign-in.failed) or a prefix ending in '.' (sign-in.);
                   repeat it for several
  --since T        events at or after T: a duration back from now (30m, 1h, 2d, 1w) or an
                   ISO date-time (2026-11-20T10:00:00Z)
  --until T        events at or before T (the same forms)
  --limit N        the newest N matching events (default ${settings.queryLimit}; ${settings.followBacklog} with --follow)
  --follow         then print new events as they are recorded, until Ctrl-C
  --json           one JSON object per line (the admin API's fields) instead of text
${serverUsage(19)}${adminUsage(19)}  -h, --help       show this help
${CLIENT_USAGE}`,
  options: {
    ...ADMIN_OPTIONS,
    ...SERVER_OPTIONS,
    user: { type: 'string' },
    client: { type: 'string' },
    type: { type: 'string', multiple: true },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
    follow: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  interruptible: true,
  async run(values, _positionals, { signal }) {
    const now = Date.now()
    const types = values['type'] as unknown as string[] | undefined
    for (const type of types ?? []) if (!/^[a-z][a-z.-]{0,63}$/.test(type)) throw new UsageError(`--type takes an event type or a prefix ending in '.', got ${type}`)
    const query: AuditQuery = {
      ...(typeof values.user === 'string' ? { user: values.user } : {}),
      ...(typeof values.client === 'string' ? { clientId: values.client } : {}),
      ...(types !== undefined && types.length > 0 ? { types } : {}),
      ...(typeof values.since === 'string' ? { since: parseAuditTime('--since', values.since, now) } : {}),
      ...(typeof values.until === 'string' ? { until: parseAuditTime('--until', values.until, now) } : {}),
    }
    const follow = values.follow === true
    const limit = values.limit === undefined ? (follow ? settings.followBacklog : settings.queryLimit) : parseLimit(values.limit)
    const print = values.json === true ? (event: StoredAuditEvent) => `${JSON.stringify(auditEventView(event))}\n` : auditLine
    const api = adminApiClient(values, { signal })
    const source = api !== undefined ? apiSource(api) : await localSource(values)
    try {
      const newest = await collect(source, query, limit)
      for (const event of newest.reverse()) process.stdout.write(print(event))
      if (!follow) return 0
      await source.follow(query, (event) => process.stdout.write(print(event)), signal)
      return INTERRUPTED_EXIT_CODE
    } finally {
      await source.close()
    }
  },
}

function parseLimit(value: string | boolean): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,6}$/.test(value)) throw new UsageError(`--limit takes a number of events (1 or more), got ${String(value)}`)
  return Number(value)
}

/** The newest `limit` matching events, newest first, a page at a time. */
async function collect(source: AuditSource, query: AuditQuery, limit: number): Promise<StoredAuditEvent[]> {
  const events: StoredAuditEvent[] = []
  let cursor: string | undefined
  do {
    const page = await source.page({ ...query, limit: Math.min(limit - events.length, settings.maxQueryLimit), ...(cursor !== undefined ? { cursor } : {}) })
    events.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined && events.length < limit)
  return events
}

/** The data directory's file, or the deployment's Redis stream (its connection opened here). */
async function localSource(values: Record<string, string | boolean | undefined>): Promise<AuditSource> {
  const { dataDir, redis } = await adminTarget(values)
  let trail: AuditTrail
  let close = async (): Promise<void> => undefined
  if (redis === undefined) {
    const file = new FileAuditTrail({ dataDir })
    await access(file.path).catch(() => process.stderr.write(`mcp-auth audit: no events yet (${file.path} does not exist)\n`))
    trail = file
  } else {
    const { RedisConnection } = await import('../../redis/connection.js')
    const { RedisAuditTrail } = await import('../../redis/redis-audit-trail.js')
    const connection = await RedisConnection.connect(redis)
    trail = new RedisAuditTrail(connection)
    close = () => connection.close()
  }
  return {
    page: (query) => auditPage(trail, query),
    follow: (query, onEvent, signal) => trail.follow(query, onEvent, signal),
    // reading only: nothing was appended, nothing to flush
    close: async () => {
      await trail.close()
      await close()
    },
  }
}

/** A running server's `GET /audit`; following polls it for events newer than the last one printed. */
function apiSource(api: AdminApiClient): AuditSource {
  const page = async (query: AuditPageQuery): Promise<AuditPage> => {
    const params = new URLSearchParams()
    if (query.limit !== undefined) params.set('limit', String(query.limit))
    if (query.cursor !== undefined) params.set('cursor', query.cursor)
    if (query.since !== undefined) params.set('since', new Date(query.since).toISOString())
    if (query.until !== undefined) params.set('until', new Date(query.until).toISOString())
    if (query.user !== undefined) params.set('user', query.user)
    if (query.clientId !== undefined) params.set('client_id', query.clientId)
    for (const type of query.types ?? []) params.append('type', type)
    const { body } = await api.call<{ items: AuditEventView[]; next_cursor?: string }>('GET', `/audit?${params}`, { what: 'reading the audit trail' })
    return { items: body.items.map(auditEventOfView), ...(body.next_cursor !== undefined ? { nextCursor: body.next_cursor } : {}) }
  }
  return {
    page,
    async follow(query, onEvent, signal) {
      // from now on: what was printed before came from the first query
      let since = Date.now()
      let printed = new Set<string>()
      while (!signal.aborted) {
        if (!(await sleep(settings.serverFollowPollMs, true, { signal }).catch(() => false))) break
        const fresh = (await collect({ page, follow: async () => undefined, close: async () => undefined }, { ...query, since }, settings.maxQueryLimit)).reverse()
        const last = fresh.at(-1)
        for (const event of fresh) if (!printed.has(event.id)) onEvent(event)
        if (last !== undefined) {
          // the next look starts at the last event's millisecond; the ids printed there are skipped
          since = Date.parse(last.at)
          printed = new Set(fresh.filter((event) => Date.parse(event.at) === since).map((event) => event.id))
        }
      }
    },
    close: async () => undefined,
  }
}
