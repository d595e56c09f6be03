import Cookies from 'cookies'
import type { Context } from 'koa'
import type { SecretBox } from '../keys/secret-box.js'

/**
 * The console's cookies: JSON sealed with AES-GCM (the cookie's name bound as context, so one
 * cannot stand in for another), HttpOnly, SameSite=Lax, Secure when the issuer is https, scoped
 * to a path. A cookie that does not open is treated as absent.
 */
export class SealedCookies {
  readonly #box: SecretBox
  readonly #secure: boolean

  constructor(box: SecretBox, secure: boolean) {
    this.#box = box
    this.#secure = secure
  }

  read<T>(ctx: Context, name: string): T | undefined {
    const value = this.#jar(ctx).get(name)
    if (value === undefined || value === '') return undefined
    try {
      return JSON.parse(this.#box.open(value, name)) as T
    } catch {
      return undefined
    }
  }

  write(ctx: Context, name: string, value: unknown, options: { path: string; maxAgeSeconds: number }): void {
    this.#jar(ctx).set(name, this.#box.seal(JSON.stringify(value), name), {
      path: options.path,
      maxAge: options.maxAgeSeconds * 1000,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.#secure,
      signed: false,
      overwrite: true,
    })
  }

  clear(ctx: Context, name: string, path: string): void {
    this.#jar(ctx).set(name, '', { path, maxAge: 0, httpOnly: true, sameSite: 'lax', secure: this.#secure, signed: false, overwrite: true })
  }

  #jar(ctx: Context): Cookies {
    return new Cookies(ctx.req, ctx.res, { secure: this.#secure })
  }
}
