import { randomBytes } from 'node:crypto'
import type { RequestListener } from 'node:http'
import type { DpopOptions } from '../auth/resource/bearer-auth.js'
import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions, ResourceInput } from '../auth/server/options.js'
import { defaults } from '../config/defaults.js'
import { createDemoServer } from '../demo/demo-server.js'
import type { McpServer } from '../server/mcp-server.js'
import type { SessionHost } from '../session-host/session-host.js'
import { isLoopbackHost, LOOPBACK_HOSTS } from '../transports/http/origin-policy.js'
import type { RedisConnection } from '../redis/connection.js'
import { Observer } from '../observe/observer.js'
import { observeJob } from './observe-job.js'
import { homePageMiddleware } from './home-page-middleware.js'
import { prefixRouter } from './prefix-router.js'
import { type ProtectedResourceSpec, protectedResourceInput } from './protected-resource-input.js'
import type { ProtectedMcpApp, ProtectedMcpAppOptions } from './protected-mcp-app.js'

export type { ProtectedResourceSpec } from './protected-resource-input.js'

const m = defaults.mainJob

export interface MainJobOptions {
  /** The public origin, e.g. http://localhost:4000: the issuer, and the demo resource is `${origin}/mcp`. */
  origin: string
  dataDir?: string
  /** Authorization server options (a configuration file's); its issuer is `origin`, its resources come after the demo's. */
  config?: AuthorizationServerOptions
  /** More MCP servers to issue tokens for (their /mcp URLs), after the configuration's. */
  resources?: readonly string[]
  /** The demo account's password when the account is created (default: a random one, returned once). */
  demoPassword?: string
  /**
   * Create the `demo` account when missing. Default: yes for a single process (a local demo, with
   * the step-up scopes); no with `redis`, which is production: there it is created only when asked,
   * with the required scopes only (never an admin scope), by the one node that creates it first.
   */
  demo?: boolean
  /**
   * The MCP server to protect (default: the demo server, its requestState key derived from the
   * data key). Several nodes serving one origin need one `requestStateKey` for yours too.
   */
  server?: McpServer
  /** The protected MCP server's resource: its name, description and scopes (default: the demo's). */
  resource?: ProtectedResourceSpec
  /**
   * Session hosts to serve instead of an McpServer (the gateway: `createGatewayJob`), each at
   * `${origin}${prefix}/mcp` (with `/sse` and `/rest` under the prefix; prefix '' for the root)
   * as a resource of its own; the first is the default resource and the home page's. The caller
   * owns the hosts (closes them after the job).
   */
  hosts?: readonly MainJobHost[]
  /** Errors no request answers (a failed write, an authorization server `server_error`). */
  onError?: (error: Error) => void
  /**
   * Keep every shared state in Redis instead of the data directory, so several processes behind a
   * load balancer serve `origin` as one (docs/deployment.md). Keys and secrets stay files in `dataDir`.
   */
  redis?: { url: string; prefix?: string }
  /** Trust X-Forwarded-* from a TLS-terminating proxy (host, scheme, client address). */
  trustProxy?: boolean
  /**
   * DPoP (RFC 9449) at the protected MCP server: always accepted for clients that use it; `required`
   * refuses Bearer tokens, `nonces` asks proofs for a server nonce (shared by every node).
   */
  dpop?: { required?: boolean; nonces?: boolean }
  /** Where the home page at `/` sends a reader for the documentation (default: it names the package's README and docs/). */
  docsUrl?: string
  /**
   * Where the job reports: its log (access lines, refusals, errors), its audit trail, metrics and
   * spans. Default: a quiet one (nothing logged); the CLI passes one that logs to stderr.
   */
  observer?: Observer
}

/** One of several session hosts a main job serves, under its own path prefix. */
export interface MainJobHost {
  /** `/<name>` ('' for the root): its routes are `${prefix}/mcp`, `${prefix}/sse`, `${prefix}/messages`, `${prefix}/rest`. */
  prefix: string
  host: SessionHost
  resource: ProtectedResourceSpec
}

export interface MainJob {
  readonly origin: string
  readonly as: AuthorizationServer
  readonly mcp: ProtectedMcpApp
  /** Every protected MCP app, `mcp` first (one per host of `hosts`). */
  readonly mcps: readonly ProtectedMcpApp[]
  /** node:http handler for the whole origin: the authorization server and the protected MCP server. */
  readonly handler: RequestListener
  /** The demo account's password, when this start created the account. */
  readonly demoPassword?: string
  /** Whether the store holds a demo account after this start (`created` by it, or `existing`), or `none`. */
  readonly demo: 'created' | 'existing' | 'none'
  /**
   * What became of `demoPassword` given for an `existing` account: `applied` (a single process set
   * it), or `not-applied` (a store several nodes share: one node's setting does not reset it).
   */
  readonly demoPasswordChange?: 'applied' | 'not-applied'
  /** True while storage answers (Redis reachable); for a load balancer's health check. */
  health(): Promise<boolean>
  close(): Promise<void>
}

/**
 * The main job of `mcp-auth start` as a library call: the authorization server and a protected
 * MCP server (the demo one unless given) on one origin, embedded storage in `dataDir`, a `demo`
 * account (created with `demoPassword` or a random one), the demo's resource first and the
 * configuration's and `resources` after it. Listening is the caller's: `handler` serves it all.
 *
 * @example
 * const job = await createMainJob({ origin: 'http://localhost:4000', dataDir: './data' })
 * http.createServer(job.handler).listen(4000, '127.0.0.1')
 */
export async function createMainJob(options: MainJobOptions): Promise<MainJob> {
  // loaded only when asked for: a single process never loads the Redis client
  const redis = options.redis === undefined ? undefined : await (await import('../redis/connection.js')).RedisConnection.connect(options.redis)
  try {
    return await assemble(options, redis)
  } catch (error) {
    await redis?.close()
    throw error
  }
}

async function assemble(options: MainJobOptions, redis: RedisConnection | undefined): Promise<MainJob> {
  const origin = new URL(options.origin).origin
  const dataDir = options.dataDir ?? defaults.storage.dataDir
  const config = options.config ?? {}
  const { createAuthorizationServer } = await import('../auth/server/create-authorization-server.js')
  const { createProtectedMcpApp } = await import('./protected-mcp-app.js')
  const spec: ProtectedResourceSpec = options.resource ?? {
    name: 'mcp-auth demo server',
    description: m.description,
    scopes: m.scopes,
    requiredScopes: m.requiredScopes,
    toolScopes: m.toolScopes,
  }
  if (options.hosts !== undefined && (options.hosts.length === 0 || options.server !== undefined))
    throw new TypeError('createMainJob: `hosts` is one or more session hosts, instead of `server`')
  // what is served, each under its prefix: the hosts given, or the one server at the root
  const mounts = options.hosts ?? [{ prefix: '', host: undefined, resource: spec }]
  const served = mounts.map((mount) => protectedResourceInput(origin, mount.prefix, mount.resource, options.dpop?.required === true))
  const demoResource = served[0]!
  const demoIdentifiers = new Set(served.flatMap((resource) => [resource.uri, ...(resource.aliases ?? [])]))
  const extra: ResourceInput[] = [...(config.resources ?? []), ...(options.resources ?? []).map((uri) => ({ uri }))]
  const observer = options.observer ?? Observer.quiet()
  const as = await createAuthorizationServer({
    ...config,
    observer,
    issuer: origin,
    dataDir,
    ...(redis !== undefined ? { redis } : {}),
    ...(options.trustProxy === true ? { trustProxy: true } : {}),
    // the demo's own resource first (the default for requests that name none), then the others
    resources: [...served, ...extra.filter((resource, i) => !demoIdentifiers.has(resource.uri) && extra.findIndex((other) => other.uri === resource.uri) === i)],
  })
  if (options.onError !== undefined) {
    const report = options.onError
    as.provider.on('server_error', (_ctx: unknown, error: Error) => report(error))
  }

  const { demoPassword, demo, demoPasswordChange } = await demoAccount(as, options, redis !== undefined)

  // keyed from the data key: a round one node asked, any node of the deployment can answer
  const server = options.hosts !== undefined ? undefined : (options.server ?? createDemoServer({ requestStateKey: as.deriveKey('mcp-auth MCP requestState') }))
  if (server !== undefined) server.onerror = options.onError ?? server.onerror ?? ((error) => observer.log.error({ err: error }, 'MCP server error'))
  const { host: publicHost, hostname } = new URL(origin)
  const shared = redis === undefined ? undefined : (await import('../redis/mcp-options.js')).redisMcpOptions(redis)
  // list changes and resource updates raised on one node reach the streams every node holds
  if (shared !== undefined && server !== undefined) await server.shareNotifications(shared.bus)
  const dpop = await dpopOptions(options, as, redis)
  const limits = await limitOptions(served, config.resources ?? [], mounts, redis, observer)
  const mcps = mounts.map((mount, i) =>
    createProtectedMcpApp((mount.host ?? server)!, {
      ...limits[i],
      ...(mount.prefix !== '' ? { prefix: mount.prefix } : {}),
      host: '127.0.0.1',
      // the public origin's host too when it is not loopback (behind a proxy that passes Host on)
      allowedHosts: isLoopbackHost(hostname) ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, publicHost],
      ...(shared ?? {}),
      origin,
      observer,
      issuer: as.issuer,
      scopesSupported: [...mount.resource.scopes],
      requiredScopes: [...mount.resource.requiredScopes],
      ...(mount.resource.toolScopes !== undefined ? { toolScopes: mount.resource.toolScopes } : {}),
      resourceName: mount.resource.name,
      // Same process as the authorization server: a revoked grant's JWTs are refused at once.
      checkRevocation: as.revocationCheck,
      requireDpop: options.dpop?.required === true,
      dpop,
      // `/`: what this server is and where everything is (issue 28, item 13); the first app serves
      // every path no server's prefix claims
      ...(i > 0
        ? {}
        : {
            middleware: [
              homePageMiddleware({
                origin,
                resource: demoResource.uri,
                ...(options.docsUrl !== undefined ? { docsUrl: options.docsUrl } : {}),
                // the operator's product name, logo and colours, as on the authorization server's pages
                ...(config.branding !== undefined ? { branding: config.branding } : {}),
              }),
              as.middleware,
            ],
          }),
      // the authorization server's per-address limits read the client's address through this app
      ...(options.trustProxy === true ? { trustProxy: true } : {}),
    }),
  )
  const mcp = mcps[0]!
  observeJob(observer, { mcps, ...(redis !== undefined ? { redis: () => as.health() } : {}) })
  return {
    origin,
    as,
    mcp,
    mcps,
    // every request observed (its id, then the access line, metrics and span the observer was given)
    handler: observer.observeRequests(
      mounts.length === 1 && mounts[0]!.prefix === ''
        ? mcp.handler
        : prefixRouter(
            mounts.map((mount, i) => ({ prefix: mount.prefix, handler: mcps[i]!.handler })),
            mcp.handler,
          ),
    ),
    ...(demoPassword !== undefined ? { demoPassword } : {}),
    demo,
    ...(demoPasswordChange !== undefined ? { demoPasswordChange } : {}),
    health: () => as.health(),
    async close() {
      await Promise.all(mcps.map((app) => app.close()))
      await as.close()
      // ours to end (its shared notifications with it); a server passed in is its owner's
      if (options.server === undefined) await server?.close()
      // the last answers' events reach Redis before the connection goes
      await shared?.eventStore.flushed()
      await redis?.close()
    },
  }
}

/**
 * The demo account. A single process creates it when missing, with the step-up demo's scopes, and
 * keeps an older one working. Several nodes (Redis) create it only when asked, with the required
 * scopes only, and atomically: of nodes starting at once, one creates it and prints its password.
 */
async function demoAccount(
  as: AuthorizationServer,
  options: MainJobOptions,
  shared: boolean,
): Promise<{ demoPassword?: string; demo: MainJob['demo']; demoPasswordChange?: MainJob['demoPasswordChange'] }> {
  const existing = await as.accounts.findByUsername(m.demoUsername)
  // a chosen password for an account that exists: a single process sets it (the operator's
  // environment says so); in a shared store one node's environment must not reset it for all;
  // and never an administrator's (the admin rules refuse making `demo` one: this holds even for a
  // store written by hand)
  if (existing?.role === 'admin' && options.demoPassword) return { demo: 'existing', demoPasswordChange: 'not-applied' }
  const chosen = existing !== undefined && options.demoPassword ? options.demoPassword : undefined
  if (options.demo === false) return { demo: existing === undefined ? 'none' : 'existing' }
  if (chosen !== undefined && shared) return { demo: 'existing', demoPasswordChange: 'not-applied' }
  if (shared && options.demo !== true) return { demo: existing === undefined ? 'none' : 'existing' }
  const password = options.demoPassword || randomBytes(12).toString('base64url')
  if (shared) {
    if (existing !== undefined) return { demo: 'existing' }
    const created = await as.accounts.createUser(m.demoUsername, password, { name: 'Demo User' }, m.requiredScopes)
    return created === undefined ? { demo: 'existing' } : { demoPassword: password, demo: 'created' }
  }
  if (existing === undefined) {
    await as.accounts.setUser(m.demoUsername, password, { name: 'Demo User' }, m.demoScopes)
    return { demoPassword: password, demo: 'created' }
  }
  // A demo account from before accounts had scopes: keep the step-up demo working.
  if (existing.scopes === undefined) await as.accounts.setScopes(m.demoUsername, m.demoScopes)
  if (chosen === undefined) return { demo: 'existing' }
  // the account's claims and scopes stay; only its password changes
  await as.accounts.setUser(m.demoUsername, chosen)
  return { demo: 'existing', demoPasswordChange: 'applied' }
}

/**
 * The resource's DPoP settings: proofs remembered in Redis when the nodes share one (a proof
 * replayed to another node is refused too), nonces keyed from the server's data key (HKDF, its own
 * label) so every node accepts the nonce any node gave.
 */
async function dpopOptions(options: MainJobOptions, as: AuthorizationServer, redis: RedisConnection | undefined): Promise<DpopOptions> {
  const replayCache = redis === undefined ? undefined : new (await import('../redis/dpop-replay-cache.js')).RedisDpopReplayCache(redis)
  const nonces: DpopOptions['nonces'] = options.dpop?.nonces === true ? { secret: as.deriveKey('mcp-auth resource DPoP nonces') } : undefined
  return { ...(replayCache !== undefined ? { replayCache } : {}), ...(nonces !== undefined ? { nonces } : {}) }
}

/**
 * Each served resource's rate limit and audit: its spec's, else the configuration's entry for its
 * identifier; with Redis the buckets are shared by every node (one per principal and resource).
 */
async function limitOptions(
  served: readonly ResourceInput[],
  configured: readonly ResourceInput[],
  mounts: ReadonlyArray<{ resource: ProtectedResourceSpec }>,
  redis: RedisConnection | undefined,
  observer: Observer,
): Promise<Array<Pick<ProtectedMcpAppOptions, 'rateLimit' | 'rateLimitBuckets' | 'audit'>>> {
  const RedisTokenBuckets = redis === undefined ? undefined : (await import('../redis/token-bucket.js')).RedisTokenBuckets
  return served.map((resource, i) => {
    const spec = mounts[i]!.resource
    const entry = configured.find((candidate) => candidate.uri === resource.uri)
    const rateLimit = spec.rateLimit ?? entry?.rateLimit
    const audit = spec.audit ?? entry?.audit
    return {
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      ...(audit !== undefined ? { audit } : {}),
      ...(RedisTokenBuckets !== undefined && rateLimit !== false ? { rateLimitBuckets: new RedisTokenBuckets({ connection: redis!, name: resource.uri, log: observer.log }) } : {}),
    }
  })
}
