import * as oidc from 'openid-client'
import { pkcePair } from './pkce-pair.js'
/**
 * Completes an authorization request through the real login and consent pages over HTTP, the
 * way a browser would: follows redirects by hand, keeps cookies, reads the CSRF field from each
 * form and posts it back. Returns the final redirect to the client (with `code` or `error`).
 */
export class CookieJar {
  /** Like a browser: cookies are per host, name and path (and, as in browsers, not per port). */
  readonly #cookies = new Map<string, { name: string; value: string; path: string; host: string | undefined }>()

  store(response: Response, url?: URL): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const pathAttribute = attributes.map((a) => a.trim()).find((a) => /^path=/i.test(a))
      const path = pathAttribute?.slice(5) ?? (url ? url.pathname.replace(/\/[^/]*$/, '') || '/' : '/')
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()) || attributes.some((a) => /^\s*max-age=0/i.test(a))
      const host = url?.hostname
      const key = `${host ?? ''}\u0000${name}\u0000${path}`
      if (expired || value === '') this.#cookies.delete(key)
      else this.#cookies.set(key, { name, value, path, host })
    }
  }

  header(url?: URL): string {
    return [...this.#cookies.values()]
      .filter((cookie) => url === undefined || cookie.host === undefined || cookie.host === url.hostname)
      .filter(
        (cookie) =>
          url === undefined || url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`) || cookie.path === '/',
      )
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ')
  }
}

export interface FormLoginOptions {
  username: string
  password: string
  /** 'allow' (default) or 'deny' on the consent page. */
  consent?: 'allow' | 'deny'
  jar?: CookieJar
  /** Stops following at the first URL starting with this (the client's redirect URI). */
  redirectUri: string
}

export interface FormLoginResult {
  /** The URL the server finally redirected to (the client's redirect URI with parameters). */
  callback: URL
  /** Pages seen on the way: 'login', 'consent'. */
  pages: string[]
}

function field(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]
}

function action(html: string, id: string): string {
  // The form whose submit button has this id.
  const forms = html.split('<form').slice(1)
  const form = forms.find((f) => f.includes(`id="${id}"`))
  const match = form === undefined ? null : /action="([^"]+)"/.exec(form)
  if (match === null) throw new Error(`no form with button #${id} in page:\n${html.slice(0, 500)}`)
  return match[1]!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

export async function formLogin(authorizationUrl: string | URL, options: FormLoginOptions): Promise<FormLoginResult> {
  const jar = options.jar ?? new CookieJar()
  const pages: string[] = []
  let url = new URL(authorizationUrl)
  let method = 'GET'
  let body: URLSearchParams | undefined
  for (let hop = 0; hop < 20; hop++) {
    if (url.href.startsWith(options.redirectUri)) return { callback: url, pages }
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(url), ...(body ? { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin } : {}) },
      ...(body ? { body } : {}),
    })
    jar.store(response, url)
    method = 'GET'
    body = undefined
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url)
      continue
    }
    const html = await response.text()
    if (response.status !== 200) throw new Error(`unexpected ${response.status} at ${url.href}: ${html}`)
    const csrf = field(html, 'csrf')
    if (csrf === undefined) throw new Error(`no form at ${url.href}: ${html.slice(0, 300)}`)
    if (html.includes('id="sign-in"')) {
      pages.push('login')
      url = new URL(action(html, 'sign-in'), url)
      body = new URLSearchParams({ csrf, username: options.username, password: options.password })
    } else {
      pages.push('consent')
      url = new URL(action(html, options.consent === 'deny' ? 'deny' : 'allow'), url)
      body = new URLSearchParams({ csrf })
    }
    method = 'POST'
  }
  throw new Error('too many redirects')
}

/**
 * A public client registered at `issuer`, and a PKCE authorization code got for it through the
 * login and consent pages (`formLogin`): what a test needs before it redeems the code its own way.
 */
export async function authorizeWithForm(
  issuer: string,
  user: { username: string; password: string },
  redirectUri: string,
  scope = 'mcp',
): Promise<{ config: oidc.Configuration; callback: URL; verifier: string }> {
  const config = await registerPublicClient(issuer, redirectUri)
  const { verifier, challenge } = await pkcePair()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  const { callback } = await formLogin(url, { ...user, redirectUri })
  return { config, callback, verifier }
}

/**
 * A public client (PKCE, no secret) registered at `issuer` by discovery and dynamic registration.
 * When the server answers with an unexpected status, the error says which status and body (a
 * proxy's 503, a limit's 429), not only openid-client's "unexpected HTTP response status code".
 */
export async function registerPublicClient(issuer: string, redirectUri: string): Promise<oidc.Configuration> {
  try {
    return await oidc.dynamicClientRegistration(new URL(issuer), { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    })
  } catch (error) {
    const response = (error as { cause?: { cause?: unknown } }).cause?.cause ?? (error as { cause?: unknown }).cause
    if (!(response instanceof Response)) throw error
    const body = await response.text().catch(() => '')
    throw new Error(`registering a client at ${issuer}: ${response.url} answered ${response.status} ${body.slice(0, 300)}`, { cause: error })
  }
}
