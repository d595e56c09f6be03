import { readFileSync } from 'node:fs'
import { JwtBearerAuth } from '../auth/client/jwt-bearer-auth.js'
import { ClientCredentialsAuth } from '../auth/client/client-credentials-auth.js'
import { McpOAuthError } from '../auth/client/mcp-oauth-error.js'
import { McpOAuth, type LoginOutcome } from '../auth/client/mcp-oauth.js'
import type { DpopMode } from '../auth/client/dpop-mode.js'
import { FileTokenStore } from '../auth/client/token-store.js'
import { McpClient } from '../client/index.js'
import { connectHttp } from '../transports/http-client/index.js'
import type { CliAuth } from './cli-auth.js'
import { parsePort, UsageError } from './command.js'
import { isLoopbackHostname } from '../config/loopback-hosts.js'
import { defaults } from '../config/defaults.js'
import { withLogin } from './with-login.js'

/** Options every client command shares. */
export const CLIENT_OPTIONS = {
  'no-browser': { type: 'boolean' },
  'callback-port': { type: 'string' },
  store: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-secret-file': { type: 'string' },
  'client-credentials': { type: 'boolean' },
  'client-metadata-url': { type: 'string' },
  'jwt-bearer-assertion-file': { type: 'string' },
  'jwt-bearer-assertion-env': { type: 'string' },
  dpop: { type: 'boolean' },
  'no-dpop': { type: 'boolean' },
} as const

export const CLIENT_USAGE = `
Login options (any command that may need to log in):
  --no-browser            print the login URL instead of opening a browser
  --callback-port PORT    loopback port for the browser's return (default: ephemeral; a busy
                          port is replaced by another unless given here)
  --store FILE            token store (default ~/.config/mcp-auth/tokens.json, 0600)
  --client-id ID          a client pre-registered at the server's authorization server
  --client-secret SECRET  its secret, if it is confidential; such a client gets its token by
                          client credentials when the server lets it (no browser), else logs in;
                          on a shared machine prefer --client-secret-file or the environment
                          variable MCP_AUTH_CLIENT_SECRET (a command line is visible to others)
  --client-secret-file FILE
                          the secret in FILE (one line)
  --client-credentials    use only the client credentials grant (with --client-id and
                          --client-secret): never a browser
  --client-metadata-url URL
                          this client's metadata document URL (used when the server supports it)
  --dpop                  always ask for DPoP-bound tokens (RFC 9449) when the authorization
                          server offers them (default: only when the server's resource metadata
                          says it accepts DPoP too; otherwise Bearer)
  --no-dpop               never: Bearer tokens (refused when the server accepts DPoP only)
Machine tokens (client credentials, JWT bearer) are kept in the token store until they expire.
Workload options (no browser: a JWT the platform issued is the grant, RFC 7523):
  --jwt-bearer-assertion-file FILE
                          the assertion (a JWT) in FILE, read again for every new token
  --jwt-bearer-assertion-env VAR
                          the assertion in the environment variable VAR
                          (with --client-id, and --client-secret for a confidential client)
`

/** `--dpop` (always), `--no-dpop` (never), neither (the default, auto); `forced` overrides both (`mcp-auth token`). */
export function dpopMode(values: Record<string, string | boolean | undefined>, forced?: DpopMode): DpopMode {
  if (values['dpop'] === true && values['no-dpop'] === true) throw new UsageError('--dpop and --no-dpop: give one')
  if (forced !== undefined) return forced
  return values['dpop'] === true ? 'always' : values['no-dpop'] === true ? 'never' : defaults.oauthClient.dpop
}

/** `logged in to URL (scope: mcp); not granted: files:read`: what a login got, and what it asked for and did not. */
export function loginLine(url: string, login: Pick<LoginOutcome, 'scope' | 'notGranted'>): string {
  return `logged in to ${url}${login.scope ? ` (scope: ${login.scope})` : ''}${login.notGranted.length > 0 ? `; not granted: ${login.notGranted.join(' ')}` : ''}`
}

/** What the client commands choose beyond the shared options: Ctrl-C, where logins run, Bearer only (`token`), who reports a login. */
export interface ClientAuthOptions {
  signal?: AbortSignal
  loginOutsideFetch?: boolean
  /** Overrides --dpop/--no-dpop: `mcp-auth token` wants Bearer tokens. */
  dpop?: DpopMode
  /** Told after a browser login; by default a line on stderr ({@link loginLine}). */
  onLogin?: (login: LoginOutcome) => void
}

export function serverUrl(positional: string | undefined): string {
  if (positional === undefined) throw new UsageError('expected the MCP server URL')
  if (!URL.canParse(positional)) throw new UsageError(`not an absolute URL: ${positional}`)
  const url = new URL(positional)
  if (url.protocol !== 'https:' && !isLoopbackHostname(url.hostname)) {
    throw new UsageError('MCP servers are reached over https (http only on loopback hosts)')
  }
  return url.href
}

/**
 * The authentication of a command that talks to an MCP server: a workload's JWT bearer grant when
 * an assertion option is given (no browser ever: a refused assertion is an error, not a login to
 * ask for), else the login helper ({@link cliAuth}).
 */
export function cliClientAuth(url: string, values: Record<string, string | boolean | undefined>, options: ClientAuthOptions = {}): CliAuth {
  const file = values['jwt-bearer-assertion-file']
  const env = values['jwt-bearer-assertion-env']
  const clientId = values['client-id']
  const secret = clientSecret(values)
  const store = new FileTokenStore(typeof values.store === 'string' ? values.store : undefined)
  // `login --scope`: what a machine asks for too
  const scope = typeof values['scope'] === 'string' ? { scope: values['scope'] } : {}
  const dpop = dpopMode(values, options.dpop)
  if (typeof file !== 'string' && typeof env !== 'string') {
    const explicit = values['client-credentials'] === true
    if (explicit && (typeof clientId !== 'string' || typeof secret !== 'string'))
      throw new UsageError('--client-credentials needs --client-id and a client secret (--client-secret, --client-secret-file or MCP_AUTH_CLIENT_SECRET)')
    if (typeof clientId !== 'string' || typeof secret !== 'string') return cliAuth(url, values, options)
    return clientCredentialsFirst(url, values, options, new ClientCredentialsAuth(url, { clientId, clientSecret: secret, store, dpop, ...scope }), explicit)
  }
  if (typeof file === 'string' && typeof env === 'string') throw new UsageError('give the assertion in a file or in a variable, not both')
  if (values['client-credentials'] === true) throw new UsageError('--client-credentials and a JWT bearer assertion are two grants: give one')
  const workload = new JwtBearerAuth(url, {
    ...(typeof file === 'string' ? { assertionFile: file } : { assertionEnv: env as string }),
    ...(typeof clientId === 'string' ? { clientId } : {}),
    ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
    ...scope,
    store,
    dpop,
  })
  return { fetch: workload.fetch, ensureLogin: async () => {}, loginAsked: async () => false, machineToken: () => workload.accessToken() }
}

/**
 * A confidential client's authentication: the client credentials grant first (no browser). When
 * the authorization server says this client may not use that grant (`unauthorized_client`) and
 * `--client-credentials` was not given, a browser login instead; any other refusal (a wrong
 * secret, `invalid_scope`…) is the command's error, never a login page.
 */
function clientCredentialsFirst(
  url: string,
  values: Record<string, string | boolean | undefined>,
  options: ClientAuthOptions,
  machine: ClientCredentialsAuth,
  explicit: boolean,
): CliAuth {
  let login: McpOAuth | undefined
  const instead = (error: unknown): McpOAuth => {
    const { error: code, error_description: description } = oauthRefusal(error)
    if (explicit || code !== 'unauthorized_client') {
      if (typeof code !== 'string') throw error
      const said = `${code}${typeof description === 'string' && description !== '' ? ` (${description})` : ''}`
      throw new McpOAuthError('token', `the authorization server refused the client credentials grant: ${said}`, { cause: error })
    }
    login ??= cliAuth(url, values, options)
    return login
  }
  return {
    fetch: async (input, init) => {
      if (login !== undefined) return login.fetch(input, init)
      try {
        return await machine.fetch(input, init)
      } catch (error) {
        return instead(error).fetch(input, init)
      }
    },
    ensureLogin: async () => login?.ensureLogin(),
    loginAsked: async () => (login === undefined ? false : login.loginAsked()),
    machineToken: async () => {
      try {
        return await machine.accessToken()
      } catch (error) {
        instead(error)
        return undefined
      }
    },
  }
}

/**
 * The login helper as the CLI sets it up: a browser hand-off (or a printed URL) and the file
 * store. `signal` (Ctrl-C) ends a login waiting for the browser; `loginOutsideFetch` leaves the
 * logins MCP requests need to `withLogin`, so that the browser wait does not count against them.
 */
export function cliAuth(url: string, values: Record<string, string | boolean | undefined>, options: ClientAuthOptions = {}): McpOAuth {
  const store = new FileTokenStore(typeof values.store === 'string' ? values.store : undefined)
  const clientId = values['client-id']
  const secret = clientSecret(values)
  const { signal, loginOutsideFetch, onLogin } = options
  return new McpOAuth(url, {
    store,
    clientName: 'mcp-auth CLI',
    ...(signal !== undefined ? { signal } : {}),
    ...(loginOutsideFetch !== undefined ? { loginOutsideFetch } : {}),
    dpop: dpopMode(values, options.dpop),
    onLogin: onLogin ?? ((login) => process.stderr.write(`${loginLine(url, login)}\n`)),
    ...(typeof values['client-metadata-url'] === 'string' ? { clientMetadataDocument: values['client-metadata-url'] } : {}),
    ...(values['callback-port'] !== undefined ? { callbackPort: parsePort(values['callback-port'], 0), strictCallbackPort: true } : {}),
    ...(typeof clientId === 'string' ? { anyIssuerClient: { client_id: clientId, ...(secret !== undefined ? { client_secret: secret } : {}) } } : {}),
    async handoff(authorizationUrl) {
      process.stderr.write(`To log in, open this URL in a browser:\n\n  ${authorizationUrl.href}\n\n`)
      const minutes = Math.round(defaults.oauthClient.callbackTimeoutMs / 60_000)
      process.stderr.write(`Waiting for the browser to come back from the login page (up to ${minutes} min; Ctrl-C to give up)...\n`)
      if (values['no-browser'] === true) return
      try {
        const { default: open } = await import('open')
        await open(authorizationUrl.href)
      } catch {
        process.stderr.write('(could not open a browser; use the URL above)\n')
      }
    },
  })
}

/**
 * Connects an McpClient to `url` through the login helper (made with `loginOutsideFetch`). A
 * login the server asks for happens first, so the browser wait does not count against the first
 * MCP request's timeout; one it asks for on the way (a refused token) happens between attempts.
 */
export async function connectClient(url: string, auth: CliAuth, options: { signal?: AbortSignal; requestTimeoutMs?: number | undefined } = {}): Promise<McpClient> {
  await auth.ensureLogin()
  const { signal, requestTimeoutMs } = options
  return withLogin(auth, async () => {
    const client = new McpClient({ name: 'mcp-auth-cli', version: '0.1.0' }, requestTimeoutMs === undefined ? {} : { requestTimeoutMs })
    try {
      // Streamable HTTP, else the 2024-11-05 HTTP+SSE transport on the same URL (a server's /sse)
      await connectHttp(client, url, { fetch: auth.fetch, ...(signal === undefined ? {} : { signal }) })
    } catch (error) {
      await client.close().catch(() => undefined)
      throw error
    }
    return client
  })
}

/** The OAuth error of a refused token request: in the body (400), or in the challenge of a 401 (a wrong client secret). */
function oauthRefusal(error: unknown): { error?: unknown; error_description?: unknown } {
  const challenges = (error as { code?: unknown; cause?: unknown }).cause
  if ((error as { code?: unknown }).code === 'OAUTH_WWW_AUTHENTICATE_CHALLENGE' && Array.isArray(challenges)) {
    const parameters = (challenges[0] as { parameters?: { error?: unknown; error_description?: unknown } } | undefined)?.parameters
    if (parameters !== undefined) return parameters
  }
  return error as { error?: unknown; error_description?: unknown }
}

/**
 * The client secret from `--client-secret`, `--client-secret-file` (its first line) or
 * `MCP_AUTH_CLIENT_SECRET` (when neither option is given); undefined when none is. A secret on the command
 * line is readable by every local user (`ps`): the file or the variable keep it out of sight.
 */
export function clientSecret(values: Record<string, string | boolean | undefined>): string | undefined {
  const flag = values['client-secret']
  const file = values['client-secret-file']
  if (typeof flag === 'string' && typeof file === 'string') throw new UsageError('give the client secret one way: --client-secret or --client-secret-file')
  if (typeof flag === 'string') return flag
  if (typeof file !== 'string') {
    // the environment's, when no option names one (an option given says which secret is meant)
    const env = process.env['MCP_AUTH_CLIENT_SECRET']
    return env === undefined || env === '' ? undefined : env
  }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read the client secret from ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  const line = text.split(/\r?\n/, 1)[0] ?? ''
  if (line === '') throw new UsageError(`${file} holds no client secret (its first line is empty)`)
  return line
}
