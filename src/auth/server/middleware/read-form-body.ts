import type { Context } from 'koa'
import { InvalidRequestError, OAuthError } from '../../errors.js'

/** Reads an application/x-www-form-urlencoded body of at most `maxBytes` (413 past it, 415 for another type). */
export async function readFormBody(ctx: Context, maxBytes: number): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 415, 'expected an application/x-www-form-urlencoded form')
  }
  const declared = Number(ctx.get('content-length') || '0')
  if (declared > maxBytes) throw new OAuthError('invalid_request', 413, 'form too large')
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) throw new OAuthError('invalid_request', 413, 'form too large')
    chunks.push(chunk as Buffer)
  }
  try {
    return new URLSearchParams(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)))
  } catch (cause) {
    throw new InvalidRequestError('the form is not valid UTF-8', { cause })
  }
}
