import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'

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
