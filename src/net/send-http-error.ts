import type { ServerResponse } from 'node:http'
import { HttpError } from './http-error.js'

/** Answer `error` (an HttpError, or anything else as a 500) unless the response has started. */
export function sendHttpError(res: ServerResponse, error: unknown): void {
  const httpError = error instanceof HttpError ? error : new HttpError(500, 'Internal server error', { cause: error })
  if (res.headersSent) {
    if (!res.writableEnded) res.end()
    return
  }
  const body = httpError.body()
  res.writeHead(httpError.status, { ...httpError.headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}
