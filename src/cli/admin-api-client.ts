import type { LoginOutcome } from '../auth/client/mcp-oauth.js'
import { McpOAuthError } from '../auth/client/mcp-oauth-error.js'
import { defaults } from '../config/defaults.js'
import { isLoopbackHostname } from '../config/loopback-hosts.js'
import { AdminApiError } from './admin-api-error.js'
import type { CliAuth } from './cli-auth.js'
import { CLIENT_OPTIONS, cliClientAuth, loginLine } from './client-auth.js'
import { UsageError } from './command.js'

const a = defaults.authServer.admin

/** The option that sends an administration command through a running server's admin API, and the login options it uses. */
export const SERVER_OPTIONS = { server: { type: 'string' }, ...CLIENT_OPTIONS } as const

/** Their lines of a usage text, descriptions starting at `column`. */
export function serverUsage(column: number): string {
  const line = (name: string, text: string): string => `  ${name.padEnd(column - 2)}${text}`
  return `${[
    line('--server URL', "act through the running server's admin API; URL is its issuer (e.g."),
    `${' '.repeat(column)}http://localhost:4000). You log in as an administrator: a browser as 'mcp-auth`,
    `${' '.repeat(column)}login' does, or --client-id and a secret for a client an administrator designated`,
  ].join('\n')}\n`
}

/** What a successful call answered. */
export interface AdminAnswer<T> {
  status: number
  headers: Headers
  body: T
}

/**
 * The admin API of a running authorization server (`${issuer}/admin/api`), called as any client
 * of a protected resource: the login helper finds the server by the API's 401 (protected resource
 * metadata, then the authorization server), registers, logs in, keeps, refreshes and steps up the
 * tokens (RFC 9470 for a sign-in too old). Logins run between attempts, not inside a request.
 * Every refusal becomes an {@link AdminApiError} saying what failed.
 */
export class AdminApiClient {
  readonly issuer: string
  readonly url: string
  readonly #auth: CliAuth
  #notAdministrator: string | undefined

  constructor(issuer: string, values: Record<string, string | boolean | undefined>, options: { signal?: AbortSignal } = {}) {
    this.issuer = issuer
    this.url = `${issuer}${a.apiPath}`
    // `--scope` of `clients add` is the new client's, not what this login asks for
    const { scope: _scope, ...loginValues } = values
    this.#auth = cliClientAuth(this.url, loginValues, {
      loginOutsideFetch: true,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onLogin: (login: LoginOutcome) => {
        process.stderr.write(`${loginLine(issuer, login)}\n`)
        if (login.notGranted.includes(a.scope)) this.#notAdministrator = login.scope ?? ''
      },
    })
  }

  /**
   * One call: `path` under the API, a JSON body, `If-Match`. Resolves with a 2xx answer; a 404 is
   * an AdminApiError like any refusal (callers that expect one catch it).
   */
  async call<T = unknown>(method: string, path: string, options: { body?: unknown; ifMatch?: string; what?: string } = {}): Promise<AdminAnswer<T>> {
    const init: RequestInit = {
      method,
      headers: {
        accept: 'application/json, application/problem+json',
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.ifMatch !== undefined ? { 'if-match': options.ifMatch } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    }
    const what = options.what ?? `${method} ${path}`
    let response: Response
    for (let logins = 0; ; logins++) {
      response = await this.#auth.fetch(`${this.url}${path}`, init)
      if ((response.status !== 401 && response.status !== 403) || logins > defaults.oauthClient.maxStepUps) break
      if (!(await this.#auth.loginAsked().catch((error: unknown) => this.#refusedLogin(error)))) break
      await response.body?.cancel()
      if (this.#notAdministrator !== undefined) {
        throw new McpOAuthError(
          'authorization',
          `the account you signed in with may not administer ${this.issuer} (${a.scope} not granted${this.#notAdministrator ? `; granted: ${this.#notAdministrator}` : ''}): sign in as an administrator`,
        )
      }
    }
    const text = await response.text()
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch (error) {
      throw new AdminApiError(response.status, undefined, `${what} at ${this.url}: not JSON`, { cause: error })
    }
    if (!response.ok) throw new AdminApiError(response.status, body as Record<string, unknown> | undefined, what)
    return { status: response.status, headers: response.headers, body: body as T }
  }

  /** A login the authorization server refused for want of the admin scope: the account is no administrator. */
  #refusedLogin(error: unknown): never {
    const code = error instanceof McpOAuthError ? (error.cause as { error?: unknown } | undefined)?.error : undefined
    if (code !== 'access_denied' && code !== 'invalid_scope') throw error
    throw new McpOAuthError(
      'authorization',
      `the account you signed in with may not administer ${this.issuer}: sign in as an administrator (${error instanceof Error ? error.message : ''})`,
      {
        cause: error,
      },
    )
  }

  /** Every item of a list, a page at a time (`next_cursor`), with the query's filters. */
  async *list<T>(path: string, query: Record<string, string | undefined> = {}, what?: string): AsyncGenerator<T> {
    let cursor: string | undefined
    do {
      const params = new URLSearchParams()
      for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value)
      if (cursor !== undefined) params.set('cursor', cursor)
      const search = params.size > 0 ? `?${params}` : ''
      const { body } = await this.call<{ items: T[]; next_cursor?: string }>('GET', `${path}${search}`, what !== undefined ? { what } : {})
      yield* body.items
      cursor = body.next_cursor
    } while (cursor !== undefined)
  }
}

/**
 * The admin API client of a command given `--server URL`, else undefined (the local modes). The
 * local modes' options beside it are a usage error: the command acts in one place.
 */
export function adminApiClient(values: Record<string, string | boolean | undefined>, options: { signal?: AbortSignal } = {}): AdminApiClient | undefined {
  const server = values['server']
  if (server === undefined) {
    const given = Object.keys(CLIENT_OPTIONS).filter((name) => values[name] !== undefined)
    if (given.length > 0) throw new UsageError(`--${given[0]} is a login option: it goes with --server URL`)
    return undefined
  }
  if (typeof server !== 'string' || !URL.canParse(server)) throw new UsageError(`--server takes the authorization server's URL (its issuer), got ${String(server)}`)
  const url = new URL(server)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHostname(url.hostname))) {
    throw new UsageError('--server: the authorization server is reached over https (http only on loopback hosts)')
  }
  if (url.search !== '' || url.hash !== '') throw new UsageError('--server takes the issuer URL, without query or fragment')
  const local = ['data-dir', 'config', 'redis', 'redis-prefix'].filter((name) => values[name] !== undefined)
  if (local.length > 0) throw new UsageError(`--server acts through the running server: --${local[0]} is for the local modes (a stopped server's data directory, or --redis)`)
  return new AdminApiClient(url.href.replace(/\/+$/, ''), values, options)
}

/** A path segment of the API (a username, a client id, a grant id). */
export const segment = (value: string): string => encodeURIComponent(value)
