import { CookieJar, formLogin } from './form-login.js'

/**
 * A browser-like visitor of the console over HTTP: keeps cookies, follows redirects by hand,
 * signs in through the real login page when sent there, and posts forms with the CSRF field the
 * page carries.
 */
export class ConsoleVisitor {
  readonly jar = new CookieJar()
  readonly #origin: string
  readonly #user: { username: string; password: string }
  /** The authorization URLs the console sent this visitor to (to see `max_age`). */
  readonly signIns: URL[] = []

  constructor(origin: string, user: { username: string; password: string }) {
    this.#origin = origin
    this.#user = user
  }

  /** A request as the browser makes it; sign-ins on the way are completed with the visitor's password. */
  async open(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; url: URL; html: string; headers: Headers }> {
    let url = new URL(path, this.#origin)
    let method = init.method ?? (init.form !== undefined ? 'POST' : 'GET')
    let body: URLSearchParams | undefined = init.form === undefined ? undefined : new URLSearchParams(init.form)
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          cookie: this.jar.header(url),
          ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', origin: this.#origin } : {}),
          ...init.headers,
        },
        ...(body !== undefined ? { body } : {}),
      })
      this.jar.store(response, url)
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location !== null) {
        const target = new URL(location, url)
        method = 'GET'
        body = undefined
        if (target.pathname === '/authorize') {
          this.signIns.push(target)
          const redirectUri = target.searchParams.get('redirect_uri')!
          const { callback } = await formLogin(target, { ...this.#user, redirectUri, jar: this.jar })
          url = callback
          continue
        }
        url = target
        continue
      }
      return { status: response.status, url, html: await response.text(), headers: response.headers }
    }
    throw new Error('too many redirects')
  }

  /** Posts the form whose submit button has `buttonId` on the page at `path`, with `fields` added. */
  async submit(
    path: string,
    buttonId: string,
    fields: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<{ status: number; url: URL; html: string; headers: Headers }> {
    const page = await this.open(path)
    const form = page.html
      .split('<form')
      .slice(1)
      .find((candidate) => candidate.includes(`id="${buttonId}"`))
    if (form === undefined) throw new Error(`no button #${buttonId} at ${path}: ${page.html.slice(0, 400)}`)
    const action = /action="([^"]+)"/.exec(form)![1]!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    const hidden = Object.fromEntries(
      [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/&#(\d+);/g, (_x, code: string) => String.fromCharCode(Number(code))),
      ]),
    )
    // browsers send the page as Referer to their own origin (referrer-policy same-origin)
    return this.open(action, { form: { ...hidden, ...fields }, headers: { referer: page.url.href, ...headers } })
  }
}
