import type { Context, Middleware, Next } from 'koa'
import { OAuthError, PayloadTooLargeError } from '../errors.js'
import { clientAddress } from './client-address.js'
import { readReplayableBody } from './replayable-body.js'
import type { UnusedClients } from './unused-client-sweeper.js'
import { scoped } from './scoped-middleware.js'

/**
 * Open registration must not be a way to fill the store: a registration body over `maxBodyBytes`
 * is 413 (by its Content-Length; a chunked one is read and replayed to oidc-provider, which would
 * say "failed to parse" instead), and a new registration is refused while its address — or
 * everyone together — already holds as many registrations nobody has used yet as allowed (counted
 * by the unused-client sweeper; with several nodes, every node's registrations, see
 * UnusedClients). Client metadata itself is bounded by the registration validator
 * (`boundedMetadata`).
 */
export function registrationLimits(options: { path: string; maxBodyBytes: number; unused: UnusedClients; maxUnusedPerAddress: number; maxUnused: number }): Middleware {
  const { path } = options
  const under = `${path}/`
  const creates = (requested: string, method: string): boolean => method === 'POST' && requested === path
  const updates = (requested: string, method: string): boolean => method === 'PUT' && requested.startsWith(under)
  return scoped(
    (requested, method) => creates(requested, method) || updates(requested, method),
    async function registrationLimits(ctx: Context, next: Next): Promise<void> {
      if (creates(ctx.path, ctx.method)) {
        if (options.unused.unused(clientAddress(ctx)) >= options.maxUnusedPerAddress) {
          throw new OAuthError('slow_down', 429, 'this address holds too many registrations that were never used; use or delete them first', { headers: { 'retry-after': '3600' } })
        }
        if (options.unused.unused() >= options.maxUnused) {
          throw new OAuthError('temporarily_unavailable', 503, 'too many registrations are waiting to be used; try again later', { headers: { 'retry-after': '3600' } })
        }
      }
      const tooLarge = (): PayloadTooLargeError => new PayloadTooLargeError(`the registration is larger than ${options.maxBodyBytes} bytes`)
      const declared = ctx.req.headers['content-length']
      if (declared !== undefined && ctx.req.headers['transfer-encoding'] === undefined) {
        // HTTP framing makes the body exactly that long, and oidc-provider checks it reads that
        // much: the header is the size, and the request goes on unread (no copy, no stand-in)
        if (Number(declared) > options.maxBodyBytes) throw tooLarge()
        return next()
      }
      const read = await readReplayableBody(ctx.req, options.maxBodyBytes)
      if (read === undefined) throw tooLarge()
      ctx.req = read.req
      await next()
    },
  )
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
