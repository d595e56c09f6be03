import type { Context, Middleware, Next } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { OAuthError, PayloadTooLargeError } from '../../errors.js'
import { clientAddress } from './client-address.js'
import { readReplayableBody } from './replayable-body.js'
import { RefusalSummary } from './refusal-summary.js'
import type { Admission, RegistrationCaps, UnusedClients } from '../admin/unused-client-sweeper.js'
import { scoped } from './scoped-middleware.js'

/**
 * Open registration must not be a way to fill the store: a registration body over `maxBodyBytes`
 * is 413 (by its Content-Length; a chunked one is read and replayed to oidc-provider, which would
 * say "failed to parse" instead), and a new registration is refused (429 slow_down, Retry-After)
 * while its address group already holds `maxUnusedPerAddress` registrations nobody has used yet,
 * counting those under way (a burst cannot overshoot). All groups together hold at most
 * `maxUnused`: when full, a group holding as many as any other is refused, and any other's
 * registration displaces the oldest unused one of a group holding the most (see
 * UnusedClients.admit), so filling the store from ever new groups (IPv6 /64s are cheap) never
 * shuts out a group that holds none. Counted by the unused-client sweeper (with several nodes,
 * every node's registrations). Refusals are a client's doing: counted and summed up in the log,
 * one line per minute, never a stack each. Client metadata itself is bounded by the registration
 * validator (`boundedMetadata`).
 */
export function registrationLimits(options: { path: string; maxBodyBytes: number; unused: UnusedClients; maxUnusedPerAddress: number; maxUnused: number }): Middleware {
  const { path } = options
  const under = `${path}/`
  const creates = (requested: string, method: string): boolean => method === 'POST' && requested === path
  const updates = (requested: string, method: string): boolean => method === 'PUT' && requested.startsWith(under)
  const caps: RegistrationCaps = { perGroup: options.maxUnusedPerAddress, total: options.maxUnused }
  const r = defaults.authServer.registration
  let app: Context['app'] | undefined
  const refusals = new RefusalSummary('registrations', r.refusalSummaryMs, (line) => app?.emit('error', line))
  return scoped(
    (requested, method) => creates(requested, method) || updates(requested, method),
    async function registrationLimits(ctx: Context, next: Next): Promise<void> {
      let admission: Admission | undefined
      if (creates(ctx.path, ctx.method)) {
        admission = options.unused.admit(clientAddress(ctx), caps)
        if (admission.refused !== false) throw refused(ctx, admission.refused, admission.held)
      }
      try {
        await limitBody(ctx, next, options.maxBodyBytes)
      } finally {
        if (admission?.refused === false) admission.release()
      }
    },
  )

  function refused(ctx: Context, why: 'group' | 'full', held: number): OAuthError {
    app = ctx.app
    const group = clientAddress(ctx)
    refusals.count(why === 'group' ? 'from address groups at their cap' : 'while full, from groups holding the most', () =>
      why === 'group'
        ? `registration refused: address group ${group} holds ${held} unused registrations, its cap`
        : `registration refused: the server holds ${caps.total} unused registrations, its cap, and address group ${group} holds as many as any (${held})`,
    )
    const description =
      why === 'group'
        ? `this address group holds ${held} registrations that were never used, as many as one may: use or delete them first`
        : `the server holds as many unused registrations as it keeps, and this address group holds as many of them as any (${held}): use or delete them first`
    return new OAuthError('slow_down', 429, description, { headers: { 'retry-after': String(r.refusedRetryAfterSeconds) } })
  }
}

async function limitBody(ctx: Context, next: Next, maxBodyBytes: number): Promise<void> {
  const tooLarge = (): PayloadTooLargeError => new PayloadTooLargeError(`the registration is larger than ${maxBodyBytes} bytes`)
  const declared = ctx.req.headers['content-length']
  if (declared !== undefined && ctx.req.headers['transfer-encoding'] === undefined) {
    // HTTP framing makes the body exactly that long, and oidc-provider checks it reads that
    // much: the header is the size, and the request goes on unread (no copy, no stand-in)
    if (Number(declared) > maxBodyBytes) throw tooLarge()
    return next()
  }
  const read = await readReplayableBody(ctx.req, maxBodyBytes)
  if (read === undefined) throw tooLarge()
  ctx.req = read.req
  await next()
}

/**
 * Bounds every string and list of client metadata (RFC 7591): from registration, its updates,
 * client ID metadata documents and the configuration alike. Returns what is wrong, if anything.
 */
export function metadataTooLarge(metadata: Record<string, unknown>, limits: { maxString: number; maxList: number }): string | undefined {
  const check = (value: unknown, where: string, depth: number): string | undefined => {
    if (typeof value === 'string') return value.length > limits.maxString ? `${where} is longer than ${limits.maxString} characters` : undefined
    if (Array.isArray(value)) {
      if (value.length > limits.maxList) return `${where} has more than ${limits.maxList} entries`
      for (const [index, entry] of value.entries()) {
        const problem = check(entry, `${where}[${index}]`, depth + 1)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    if (typeof value === 'object' && value !== null) {
      if (depth > 4) return `${where} is nested too deeply`
      const entries = Object.entries(value)
      if (depth > 0 && entries.length > 4 * limits.maxList) return `${where} has too many members`
      for (const [key, entry] of entries) {
        const problem = check(entry, depth === 0 ? key : `${where}.${key}`, depth + 1)
        if (problem !== undefined) return problem
      }
    }
    return undefined
  }
  return check(metadata, '', 0)
}
