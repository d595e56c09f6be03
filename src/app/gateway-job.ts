import type { RequestListener } from 'node:http'
import { discoverAuthorizationServer } from '../auth/resource/discover-authorization-server.js'
import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../auth/server/options.js'
import { openAccountValues } from '../auth/server/stores/open-account-values.js'
import { defaults } from '../config/defaults.js'
import type { AccountValues } from '../gateway/account-values.js'
import type { ChildFactory } from '../gateway/child-factory.js'
import { GatewayChildren } from '../gateway/gateway-children.js'
import { GatewayHost, type GatewayHostOptions } from '../gateway/gateway-host.js'
import { httpUpstreamChildren } from '../gateway/http-upstream-children.js'
import type { PrincipalTokenSigner } from '../gateway/principal-token-signer.js'
import { stdioChildren } from '../gateway/stdio-children.js'
import type { UpstreamTransportKind } from '../gateway/upstream-transport.js'
import { outboundFetch } from '../net/outbound-fetch.js'
import { isLoopbackHost, LOOPBACK_HOSTS } from '../transports/http/origin-policy.js'
import { gatewayServerNameProblem } from './gateway-server-name.js'
import { Observer } from '../observe/observer.js'
import { FileAuditTrail } from '../observe/file-audit-trail.js'
import { observeGatewayChildren } from './observe-gateway-children.js'
import { observeJob } from './observe-job.js'
import { createMainJob, type MainJobOptions, type ProtectedResourceSpec } from './main-job.js'
import { prefixRouter } from './prefix-router.js'
import { createProtectedMcpApp, type ProtectedMcpApp } from './protected-mcp-app.js'

/** The program the gateway runs for its callers: a stdio MCP server. */
export interface GatewayCommand {
  command: string
  args?: readonly string[]
  cwd?: string
  /** Variables every child gets (beside the allow-listed ones of ours and the principal's). */
  env?: Readonly<Record<string, string>>
}

/** An HTTP MCP server without auth that the gateway fronts instead of a stdio program (`--upstream`). */
export interface GatewayUpstream {
  /** Its endpoint, e.g. `http://127.0.0.1:9000/mcp` (or its `/sse` for a legacy one). */
  url: string
  /** The header that carries the principal JWT (default `defaults.gateway.upstreamHeader`). */
  header?: string
  /** Default `auto`: Streamable HTTP, falling back to HTTP+SSE. */
  transport?: UpstreamTransportKind
}

export interface GatewayJobOptions extends Pick<MainJobOptions, 'dataDir' | 'redis' | 'trustProxy' | 'dpop' | 'docsUrl' | 'onError' | 'observer'> {
  /** The public origin; the gateway's resource is `${origin}/mcp`. */
  origin: string
  /** The stdio program behind the gateway (exactly one of `child`, `upstream` and `servers`). */
  child?: GatewayCommand
  /**
   * An HTTP MCP server behind the gateway instead (exactly one of `child`, `upstream` and
   * `servers`): it never sees the caller's token, it gets a principal JWT signed with our keys.
   * Needs our authorization server (not `authServer`), whose keys sign it and whose JWKS verifies it.
   */
  upstream?: GatewayUpstream
  /**
   * Several stdio programs behind one gateway instead of `child`: each at `/<name>/mcp` (and
   * `/<name>/sse`, `/<name>/rest`), a resource of its own with its own scopes, all on one
   * authorization server, so a client signs in once for all of them.
   */
  servers?: readonly GatewayServer[]
  /**
   * Trust another authorization server (its issuer, read by RFC 8414 discovery) instead of running
   * ours: tokens are checked against its JWKS, and no login page runs here.
   */
  authServer?: string
  /** Our authorization server's options (a configuration file's), when it runs here. */
  config?: AuthorizationServerOptions
  /** The resource's name, description and scopes (default: `mcp` for every request). */
  resource?: Partial<ProtectedResourceSpec>
  /** One child for everyone (see GatewayHostOptions.shared). */
  shared?: boolean
  /** Caps and times of the children (defaults.gateway). */
  children?: Pick<GatewayHostOptions, 'maxChildren' | 'maxChildrenPerPrincipal' | 'childIdleMs' | 'initializeTimeoutMs' | 'restartDelayMs' | 'maxRestartDelayMs'>
  /** The per-account values handed to each subject's children (default: the store's, when our authorization server runs here). */
  accountValues?: AccountValues
  /** Where the children's stderr and the gateway's remarks go, a line each (default: stderr). */
  log?: (line: string) => void
}

/** One stdio program of a gateway's `servers`. */
export interface GatewayServer {
  /** Its path segment: `^[a-z0-9][a-z0-9-]{0,62}$`, none of the origin's own paths (`mcp`, `authorize`…). */
  name: string
  child: GatewayCommand
  /** Its resource's name, description and scopes (default: `mcp` for every request). */
  resource?: Partial<ProtectedResourceSpec>
  /** One child for everyone of this server (see GatewayHostOptions.shared). */
  shared?: boolean
  /** Caps and times of this server's children (defaults.gateway). */
  children?: GatewayJobOptions['children']
}

/** One server of a gateway's `servers`: its session host and protected app. */
export interface GatewayServerJob {
  readonly name: string
  /** `${origin}/<name>/mcp` */
  readonly resource: string
  readonly host: GatewayHost
  readonly mcp: ProtectedMcpApp
}

export interface GatewayJob {
  readonly origin: string
  /** Our authorization server, unless `authServer` names another. */
  readonly as: AuthorizationServer | undefined
  /** The issuer whose tokens are accepted. */
  readonly issuer: string
  /** The session host (the first server's with `servers`). */
  readonly host: GatewayHost
  /** The protected app (the first server's with `servers`). */
  readonly mcp: ProtectedMcpApp
  /** With `servers`: each one's host and app, in the order given. */
  readonly servers?: readonly GatewayServerJob[]
  readonly handler: RequestListener
  health(): Promise<boolean>
  /** Stop serving, then end every child (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>
}

/**
 * `mcp-auth gateway` as a library call: a stdio MCP server behind our login. Each stateful
 * session gets a child of its own, each stateless principal a long-lived one, all behind the
 * Bearer/DPoP check with protected resource metadata; the authorization server runs on the same
 * origin (no demo account), or `authServer` names the one whose tokens are accepted.
 *
 * @example
 * const job = await createGatewayJob({ origin: 'http://localhost:4000', dataDir: './data', child: { command: 'mcp-server-everything' } })
 * http.createServer(job.handler).listen(4000, '127.0.0.1')
 */
export async function createGatewayJob(options: GatewayJobOptions): Promise<GatewayJob> {
  const origin = new URL(options.origin).origin
  // the observer's log when there is one (the children's stderr and the gateway's remarks, a line each), else stderr
  const log = options.log ?? (options.observer !== undefined ? lineTo(options.observer, undefined) : (line: string) => process.stderr.write(`${line}\n`))
  const given = [options.child, options.upstream, options.servers].filter((choice) => choice !== undefined).length
  if (given !== 1) throw new TypeError('createGatewayJob: give exactly one of `child` (a stdio program), `upstream` (an HTTP server) or `servers` (several stdio programs)')
  if (options.upstream !== undefined && options.authServer !== undefined) {
    throw new TypeError(
      "an upstream HTTP server gets a principal JWT signed with our authorization server's keys (verifiable at its JWKS); with authServer (another authorization server) there are none: run ours, or put the upstream behind a stdio bridge",
    )
  }
  if (options.upstream !== undefined && !URL.canParse(options.upstream.url)) throw new TypeError(`upstream.url must be a URL, got ${options.upstream.url}`)
  if (options.servers !== undefined) {
    const problem = serversProblem(options.servers)
    if (problem !== undefined) throw new TypeError(`createGatewayJob: ${problem}`)
  }
  // known once the authorization server (ours, or the gateway's own store) is open: the children start after
  const late: Late = { accountValues: options.accountValues, signer: undefined }
  // every child, listed for the admin API (GET /children, DELETE /children/{id})
  const children = new GatewayChildren(options.observer !== undefined ? { observer: options.observer } : {})
  if (options.observer !== undefined) observeGatewayChildren(options.observer, () => children.list().length)
  const mounts = options.servers === undefined ? [rootMount(options, late, log, children)] : options.servers.map((server) => serverMount(options, server, late, log, children))
  const closeHosts = async () => {
    await Promise.all(mounts.map((mount) => mount.host.close()))
  }
  const serverJobs = (apps: readonly ProtectedMcpApp[]): { servers?: GatewayServerJob[] } =>
    options.servers === undefined ? {} : { servers: mounts.map((mount, i) => ({ name: mount.prefix.slice(1), resource: apps[i]!.resource, host: mount.host, mcp: apps[i]! })) }
  let closeValues: (() => Promise<void>) | undefined
  try {
    if (options.authServer === undefined) {
      const job = await createMainJob({
        origin,
        ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
        // the authorization server lists and ends the children through its admin API
        config: { ...options.config, children },
        ...(options.redis !== undefined ? { redis: options.redis } : {}),
        ...(options.trustProxy === true ? { trustProxy: true } : {}),
        ...(options.dpop !== undefined ? { dpop: options.dpop } : {}),
        ...(options.docsUrl !== undefined ? { docsUrl: options.docsUrl } : {}),
        ...(options.onError !== undefined ? { onError: options.onError } : {}),
        ...(options.observer !== undefined ? { observer: options.observer } : {}),
        hosts: mounts.map(({ prefix, host, spec }) => ({ prefix, host, resource: spec })),
        demo: false,
      })
      const as = job.as
      late.accountValues ??= as.accountValues
      late.signer = { sign: (claims) => as.signPrincipalToken({ ...claims }) }
      return {
        origin,
        as,
        issuer: as.issuer,
        host: mounts[0]!.host,
        mcp: job.mcp,
        ...serverJobs(job.mcps),
        handler: job.handler,
        health: () => job.health(),
        async close() {
          await job.close()
          await closeHosts()
        },
      }
    }
    // the accounts live at the other server; their values, keyed by subject, in our own store
    const opened =
      options.accountValues === undefined
        ? await openAccountValues({ dataDir: options.dataDir ?? defaults.storage.dataDir, ...(options.redis !== undefined ? { redis: options.redis } : {}) })
        : undefined
    late.accountValues ??= opened?.values
    closeValues = opened?.close
    const metadata = await discoverAuthorizationServer(options.authServer, outboundFetch({ configuredBy: 'operator', allowPrivateAddresses: true, setting: '--auth-server' }))
    const jwksUri = metadata.jwks_uri
    if (jwksUri === undefined) throw new Error(`the authorization server ${options.authServer} publishes no jwks_uri: the gateway verifies its tokens as JWTs`)
    const { host: publicHost, hostname } = new URL(origin)
    const observer = options.observer ?? Observer.quiet()
    // no authorization server of ours keeps the trail: the gateway's own events go to its data directory
    const trail = observer.trail === undefined ? new FileAuditTrail({ dataDir: options.dataDir ?? defaults.storage.dataDir, log: observer.log }) : undefined
    if (trail !== undefined) observer.attachTrail(trail)
    const apps = mounts.map(({ prefix, host, spec }) =>
      createProtectedMcpApp(host, {
        ...(prefix !== '' ? { prefix } : {}),
        host: '127.0.0.1',
        allowedHosts: isLoopbackHost(hostname) ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, publicHost],
        origin,
        issuer: metadata.issuer,
        jwksUri,
        scopesSupported: [...spec.scopes],
        requiredScopes: [...spec.requiredScopes],
        ...(spec.toolScopes !== undefined ? { toolScopes: spec.toolScopes } : {}),
        resourceName: spec.name,
        requireDpop: options.dpop?.required === true,
        ...(options.trustProxy === true ? { trustProxy: true } : {}),
        ...(spec.rateLimit !== undefined ? { rateLimit: spec.rateLimit } : {}),
        observer,
      }),
    )
    observeJob(observer, { mcps: apps })
    const notFound: RequestListener = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the servers are at ${mounts.map((mount) => `${mount.prefix}/mcp`).join(', ')}\n`)
    }
    return {
      origin,
      as: undefined,
      issuer: metadata.issuer,
      host: mounts[0]!.host,
      mcp: apps[0]!,
      ...serverJobs(apps),
      handler: observer.observeRequests(
        options.servers === undefined
          ? apps[0]!.handler
          : prefixRouter(
              mounts.map((mount, i) => ({ prefix: mount.prefix, handler: apps[i]!.handler })),
              notFound,
            ),
      ),
      health: async () => true,
      async close() {
        await Promise.all(apps.map((app) => app.close()))
        await closeHosts()
        await closeValues?.()
        await trail?.close()
      },
    }
  } catch (error) {
    await closeHosts()
    await closeValues?.()
    throw error
  }
}

/** What the children need that exists only once the authorization server or the store is open. */
interface Late {
  accountValues: AccountValues | undefined
  signer: PrincipalTokenSigner | undefined
}

/** One session host the gateway serves, under its path prefix ('' for the root), with its resource. */
interface Mount {
  prefix: string
  host: GatewayHost
  spec: ProtectedResourceSpec
}

/** The resource of a server: what it was given, else `mcp` for every request. */
function resourceSpec(resource: Partial<ProtectedResourceSpec> | undefined, name: string): ProtectedResourceSpec {
  return {
    name: resource?.name ?? `${name} (behind the mcp-auth gateway)`,
    scopes: resource?.scopes ?? defaults.authServer.resourceScopes,
    requiredScopes: resource?.requiredScopes ?? defaults.authServer.resourceScopes,
    ...(resource?.description !== undefined ? { description: resource.description } : {}),
    ...(resource?.toolScopes !== undefined ? { toolScopes: resource.toolScopes } : {}),
    ...(resource?.rateLimit !== undefined ? { rateLimit: resource.rateLimit } : {}),
  }
}

/** Children of a stdio program, each with its subject's per-account values. */
function stdioFactory(child: GatewayCommand, late: Late, log: (line: string) => void): ChildFactory {
  return (principal, linkOptions) => stdioChildren({ ...child, log, ...(late.accountValues !== undefined ? { accountValues: late.accountValues } : {}) })(principal, linkOptions)
}

/** `child` or `upstream`, at the root of the origin. */
function rootMount(options: GatewayJobOptions, late: Late, log: (line: string) => void, children: GatewayChildren): Mount {
  const upstream = options.upstream
  const factory: ChildFactory =
    upstream !== undefined
      ? (principal, linkOptions) =>
          httpUpstreamChildren({
            url: upstream.url,
            ...(upstream.header !== undefined ? { header: upstream.header } : {}),
            ...(upstream.transport !== undefined ? { transport: upstream.transport } : {}),
            signer: late.signer!,
            log,
          })(principal, linkOptions)
      : stdioFactory(options.child!, late, log)
  const host = new GatewayHost({ factory: children.track(factory, '/mcp'), log, ...(options.shared === true ? { shared: true } : {}), ...options.children })
  return { prefix: '', host, spec: resourceSpec(options.resource, options.child !== undefined ? basename(options.child.command) : upstream!.url) }
}

/** One of `servers`, at `/<name>`. */
function serverMount(options: GatewayJobOptions, server: GatewayServer, late: Late, log: (line: string) => void, children: GatewayChildren): Mount {
  // which server a child's stderr or a refusal is about
  const serverLog = options.log === undefined && options.observer !== undefined ? lineTo(options.observer, server.name) : (line: string) => log(`[${server.name}] ${line}`)
  const shared = server.shared ?? options.shared
  const host = new GatewayHost({
    factory: children.track(stdioFactory(server.child, late, serverLog), `/${server.name}/mcp`),
    log: serverLog,
    ...(shared === true ? { shared: true } : {}),
    ...options.children,
    ...server.children,
  })
  return { prefix: `/${server.name}`, host, spec: resourceSpec(server.resource, server.name) }
}

function basename(command: string): string {
  return command.split(/[\\/]/).pop() || command
}

/** Why `servers` cannot be served together (a name that is no path segment, taken, or given twice), or undefined. */
function serversProblem(servers: readonly GatewayServer[]): string | undefined {
  if (servers.length === 0) return '`servers` is empty: give at least one'
  const seen = new Set<string>()
  for (const server of servers) {
    const problem = gatewayServerNameProblem(server.name)
    if (problem !== undefined) return `server ${problem}`
    if (seen.has(server.name)) return `server ${JSON.stringify(server.name)} is given twice: each name is one path (/${server.name}/mcp)`
    seen.add(server.name)
  }
  return undefined
}

/** A line of a child's stderr or of the gateway's remarks, at info in the observer's log, with the server's name as a field. */
function lineTo(observer: Observer, server: string | undefined): (line: string) => void {
  const log = server === undefined ? observer.log : observer.log.child({ server })
  return (line) => log.info(line)
}
