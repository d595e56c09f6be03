import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import type { Context } from 'koa'

/**
 * Reads a request body (at most `limit` bytes; undefined past it) and returns it together with a
 * stand-in for the request that a later reader (oidc-provider's body parser) reads the same bytes
 * from. Everything but the stream side is the original request.
 */
export async function readReplayableBody(req: IncomingMessage, limit: number): Promise<{ body: Buffer; req: IncomingMessage } | undefined> {
  const declared = Number(req.headers['content-length'] ?? '0')
  if (declared > limit) return undefined
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) return undefined
    chunks.push(chunk as Buffer)
  }
  const body = Buffer.concat(chunks, size)
  const replay = Readable.from([body])
  const standIn = new Proxy(req, {
    get(target, property) {
      if (property === 'readable') return replay.readable
      if (property === 'readableEncoding') return null
      if (property === 'iterator') return replay.iterator.bind(replay)
      if (property === Symbol.asyncIterator) return replay[Symbol.asyncIterator].bind(replay)
      const value = Reflect.get(target, property, target) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return { body, req: standIn }
}

const forms = new WeakMap<object, URLSearchParams | null>()

/**
 * The form of a token or introspection request, read once per request however many of our
 * middleware look at it (the rate limiter, the upstream guard), and replayed to oidc-provider.
 * Undefined past `limit` bytes: the stream is spent then, so the caller throws PayloadTooLargeError.
 */
export async function readFormOnce(ctx: Context, limit: number): Promise<URLSearchParams | undefined> {
  if (forms.has(ctx)) return forms.get(ctx) ?? undefined
  const read = await readReplayableBody(ctx.req, limit)
  if (read === undefined) {
    forms.set(ctx, null)
    return undefined
  }
  ctx.req = read.req
  const form = new URLSearchParams(read.body.toString('utf8'))
  forms.set(ctx, form)
  return form
}
