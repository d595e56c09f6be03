import type { IncomingMessage } from 'node:http'
import getRawBody from 'raw-body'
import { ErrorCode } from '../../jsonrpc/index.js'
import { HttpError } from './http-error.js'

/**
 * Read a JSON request body with a size limit: 413 past `limit` bytes, 400 (-32700) for bytes
 * that are not UTF-8 JSON. A body a framework already parsed can be passed as `parsed`.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  let text: string
  try {
    text = await getRawBody(req, { limit, encoding: 'utf8', length: req.headers['content-length'] })
  } catch (cause) {
    const type = (cause as { type?: string }).type
    if (type === 'entity.too.large') throw new HttpError(413, `Payload Too Large: the body exceeds ${limit} bytes`, { cause })
    throw new HttpError(400, 'Bad Request: the body could not be read', { rpcCode: ErrorCode.ParseError, cause })
  }
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', { rpcCode: ErrorCode.ParseError, cause })
  }
}
