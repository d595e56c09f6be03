import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Context } from 'koa'
import { defaults } from '../../../config/defaults.js'
import { readFormBody } from '../middleware/read-form-body.js'

/** A console form was refused before it acted: cross-origin, or without this session's CSRF token. */
export class FormRefused extends Error {
  override name = 'FormRefused'
}

/** The CSRF token of a session's forms (or of a one-time page's, bound to its token): an HMAC, nothing stored. */
export function csrfToken(key: Buffer, binding: string): string {
  return createHmac('sha256', key).update(`console:${binding}`).digest('base64url')
}

/**
 * Reads a POSTed console form after the checks every one passes: same origin (the `Origin`
 * header, and `Sec-Fetch-Site` when the browser sends it) and the CSRF token bound to `binding`
 * (the session id, or a one-time link's token).
 */
export async function readConsoleForm(ctx: Context, options: { origin: string; csrfKey: Buffer; binding: string }): Promise<URLSearchParams> {
  const origin = ctx.get('origin')
  if (origin !== '' && origin !== options.origin) throw new FormRefused('cross-origin form submission refused')
  const site = ctx.get('sec-fetch-site')
  if (site !== '' && site !== 'same-origin') throw new FormRefused('cross-site form submission refused')
  const form = await readFormBody(ctx, defaults.authServer.maxFormBytes)
  const sent = Buffer.from(form.get('csrf') ?? '')
  const expected = Buffer.from(csrfToken(options.csrfKey, options.binding))
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw new FormRefused('the form has expired or was not sent by this page')
  return form
}
