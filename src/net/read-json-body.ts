import type { IncomingMessage } from 'node:http'
import { ErrorCode } from '../jsonrpc/index.js'
import { HttpError } from './http-error.js'

/**
 * Read a JSON request body with a size limit: 413 past `limit` bytes (announced by
 * Content-Length or counted as it arrives), 400 (-32700) for bytes that are not UTF-8 JSON.
 * Plain stream events, no extra promise layers: this runs for every request.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    req.resume()
    return Promise.reject(new HttpError(413, `Payload Too Large: the body exceeds ${limit} bytes`))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        req.resume()
        reject(new HttpError(413, `Payload Too Large: the body exceeds ${limit} bytes`))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8')
      try {
        resolve(JSON.parse(text))
      } catch (cause) {
        reject(new HttpError(400, 'Parse error: the body is not valid JSON', { rpcCode: ErrorCode.ParseError, cause }))
      }
    }
    const onError = (cause: Error) => {
      cleanup()
      reject(new HttpError(400, 'Bad Request: the body could not be read', { rpcCode: ErrorCode.ParseError, cause }))
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}
