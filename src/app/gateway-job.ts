import type { RequestListener } from 'node:http'
import { discoverAuthorizationServer } from '../auth/resource/discover-authorization-server.js'
import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../auth/server/options.js'
import { openAccountValues } from '../auth/server/stores/open-account-values.js'
import { defaults } from '../config/defaults.js'
import type { AccountValues } from '../gateway/account-values.js'
import type { ChildFactory } from '../gateway/child-factory.js'
import { GatewayHost, type GatewayHostOptions } from '../gateway/gateway-host.js'
import { httpUpstreamChildren } from '../gateway/http-upstream-children.js'
import type { PrincipalTokenSigner } from '../gateway/principal-token-signer.js'
import { stdioChildren } from '../gateway/stdio-children.js'
import type { UpstreamTransportKind } from '../gateway/upstream-transport.js'
import { outboundFetch } from '../net/outbound-fetch.js'
import { isLoopbackHost, LOOPBACK_HOSTS } from '../transports/http/origin-policy.js'
import { gatewayServerNameProblem } from './gateway-server-name.js'
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

export interface GatewayJobOptions extends Pick<MainJobOptions, 'dataDir' | 'redis' | 'trustProxy' | 'dpop' | 'docsUrl' | 'onError'> {
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
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const given = [options.child, options.upstream, options.servers].filter((choice) => choice !== undefined).length
  if (given !== 1) throw new TypeError('createGatewayJob: give exactly one of `child` (a stdio program), `upstream` (an HTTP server) or `servers` (several stdio programs)')
  if (options.servers !== undefined) return createServersJob(options, options.servers, origin, log)
  if (options.upstream !== undefined && options.authServer !== undefined) {
    throw new TypeError(
      "an upstream HTTP server gets a principal JWT signed with our authorization server's keys (verifiable at its JWKS); with authServer (another authorization server) there are none: run ours, or put the upstream behind a stdio bridge",
    )
  }
  const upstream = options.upstream
  if (upstream !== undefined && !URL.canParse(upstream.url)) throw new TypeError(`upstream.url must be a URL, got ${upstream.url}`)
  // our authorization server's, once it runs (the factory is only called after)
  let signer: PrincipalTokenSigner | undefined
  const spec: ProtectedResourceSpec = {
    name: options.resource?.name ?? `${options.child !== undefined ? basename(options.child.command) : upstream!.url} (behind the mcp-auth gateway)`,
    scopes: options.resource?.scopes ?? defaults.authServer.resourceScopes,
    requiredScopes: options.resource?.requiredScopes ?? defaults.authServer.resourceScopes,
    ...(options.resource?.description !== undefined ? { description: options.resource.description } : {}),
    ...(options.resource?.toolScopes !== undefined ? { toolScopes: options.resource.toolScopes } : {}),
  }
  let accountValues = options.accountValues
  const factory: ChildFactory =
    upstream !== undefined
      ? (principal, linkOptions) =>
          httpUpstreamChildren({
            url: upstream.url,
            ...(upstream.header !== undefined ? { header: upstream.header } : {}),
            ...(upstream.transport !== undefined ? { transport: upstream.transport } : {}),
            signer: signer!,
            log,
          })(principal, linkOptions)
      : (principal, linkOptions) => stdioChildren({ ...options.child!, log, ...(accountValues !== undefined ? { accountValues } : {}) })(principal, linkOptions)
  let closeValues: (() => Promise<void>) | undefined
  const host = new GatewayHost({ factory, log, ...(options.shared === true ? { shared: true } : {}), ...options.children })
  try {
    if (options.authServer === undefined) {
      const job = await createMainJob({
        origin,
        ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
        ...(options.config !== undefined ? { config: options.config } : {}),
        ...(options.redis !== undefined ? { redis: options.redis } : {}),
        ...(options.trustProxy === true ? { trustProxy: true } : {}),
        ...(options.dpop !== undefined ? { dpop: options.dpop } : {}),
        ...(options.docsUrl !== undefined ? { docsUrl: options.docsUrl } : {}),
        ...(options.onError !== undefined ? { onError: options.onError } : {}),
        host,
        resource: spec,
        demo: false,
      })
      accountValues ??= job.as.accountValues
      const as = job.as
      signer = { sign: (claims) => as.signPrincipalToken({ ...claims }) }
      return {
        origin,
        as: job.as,
        issuer: job.as.issuer,
        host,
        mcp: job.mcp,
        handler: job.handler,
        health: () => job.health(),
        async close() {
          await job.close()
          await host.close()
        },
      }
    }
    // the accounts live at the other server; their values, keyed by subject, in our own store
    const opened =
      options.accountValues === undefined
        ? await openAccountValues({ dataDir: options.dataDir ?? defaults.storage.dataDir, ...(options.redis !== undefined ? { redis: options.redis } : {}) })
        : undefined
    accountValues ??= opened?.values
    closeValues = opened?.close
    const metadata = await discoverAuthorizationServer(options.authServer, outboundFetch({ configuredBy: 'operator', allowPrivateAddresses: true, setting: '--auth-server' }))
    if (metadata.jwks_uri === undefined) throw new Error(`the authorization server ${options.authServer} publishes no jwks_uri: the gateway verifies its tokens as JWTs`)
    const { host: publicHost, hostname } = new URL(origin)
    const mcp = createProtectedMcpApp(host, {
      host: '127.0.0.1',
      allowedHosts: isLoopbackHost(hostname) ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, publicHost],
      origin,
      issuer: metadata.issuer,
      jwksUri: metadata.jwks_uri,
      scopesSupported: [...spec.scopes],
      requiredScopes: [...spec.requiredScopes],
      ...(spec.toolScopes !== undefined ? { toolScopes: spec.toolScopes } : {}),
      resourceName: spec.name,
      requireDpop: options.dpop?.required === true,
      ...(options.trustProxy === true ? { trustProxy: true } : {}),
    })
    return {
      origin,
      as: undefined,
      issuer: metadata.issuer,
      host,
      mcp,
      handler: mcp.handler,
      health: async () => true,
      async close() {
        await mcp.close()
        await host.close()
        await closeValues?.()
      },
    }
  } catch (error) {
    await host.close()
    await closeValues?.()
    throw error
  }
}

function basename(command: string): string {
  return command.split(/[\\/]/).pop() || command
}

/** `createGatewayJob({ servers })`: each server its own host and protected app under `/<name>`, one authorization server. */
async function createServersJob(options: GatewayJobOptions, servers: readonly GatewayServer[], origin: string, log: (line: string) => void): Promise<GatewayJob> {
  const problem = serversProblem(servers)
  if (problem !== undefined) throw new TypeError(`createGatewayJob: ${problem}`)
  let accountValues = options.accountValues
  let closeValues: (() => Promise<void>) | undefined
  const hosts = servers.map((server) => {
    // which server a child's stderr or a refusal is about
    const serverLog = (line: string) => log(`[${server.name}] ${line}`)
    const factory: ChildFactory = (principal, linkOptions) =>
      stdioChildren({ ...server.child, log: serverLog, ...(accountValues !== undefined ? { accountValues } : {}) })(principal, linkOptions)
    const shared = server.shared ?? options.shared
    return new GatewayHost({ factory, log: serverLog, ...(shared === true ? { shared: true } : {}), ...options.children, ...server.children })
  })
  const specs = servers.map((server): ProtectedResourceSpec => {
    const resource = server.resource
    return {
      name: resource?.name ?? `${server.name} (behind the mcp-auth gateway)`,
      scopes: resource?.scopes ?? defaults.authServer.resourceScopes,
      requiredScopes: resource?.requiredScopes ?? defaults.authServer.resourceScopes,
      ...(resource?.description !== undefined ? { description: resource.description } : {}),
      ...(resource?.toolScopes !== undefined ? { toolScopes: resource.toolScopes } : {}),
    }
  })
  const serverJobs = (apps: readonly ProtectedMcpApp[]): GatewayServerJob[] =>
    servers.map((server, i) => ({ name: server.name, resource: apps[i]!.resource, host: hosts[i]!, mcp: apps[i]! }))
  const closeHosts = async () => {
    await Promise.all(hosts.map((host) => host.close()))
  }
  try {
    if (options.authServer === undefined) {
      const job = await createMainJob({
        origin,
        ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
        ...(options.config !== undefined ? { config: options.config } : {}),
        ...(options.redis !== undefined ? { redis: options.redis } : {}),
        ...(options.trustProxy === true ? { trustProxy: true } : {}),
        ...(options.dpop !== undefined ? { dpop: options.dpop } : {}),
        ...(options.docsUrl !== undefined ? { docsUrl: options.docsUrl } : {}),
        ...(options.onError !== undefined ? { onError: options.onError } : {}),
        hosts: servers.map((server, i) => ({ prefix: `/${server.name}`, host: hosts[i]!, resource: specs[i]! })),
        demo: false,
      })
      accountValues ??= job.as.accountValues
      return {
        origin,
        as: job.as,
        issuer: job.as.issuer,
        host: hosts[0]!,
        mcp: job.mcp,
        servers: serverJobs(job.mcps),
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
    accountValues ??= opened?.values
    closeValues = opened?.close
    const metadata = await discoverAuthorizationServer(options.authServer, outboundFetch({ configuredBy: 'operator', allowPrivateAddresses: true, setting: '--auth-server' }))
    if (metadata.jwks_uri === undefined) throw new Error(`the authorization server ${options.authServer} publishes no jwks_uri: the gateway verifies its tokens as JWTs`)
    const { host: publicHost, hostname } = new URL(origin)
    const apps = servers.map((server, i) => {
      const spec = specs[i]!
      return createProtectedMcpApp(hosts[i]!, {
        prefix: `/${server.name}`,
        host: '127.0.0.1',
        allowedHosts: isLoopbackHost(hostname) ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, publicHost],
        origin,
        issuer: metadata.issuer,
        jwksUri: metadata.jwks_uri!,
        scopesSupported: [...spec.scopes],
        requiredScopes: [...spec.requiredScopes],
        ...(spec.toolScopes !== undefined ? { toolScopes: spec.toolScopes } : {}),
        resourceName: spec.name,
        requireDpop: options.dpop?.required === true,
        ...(options.trustProxy === true ? { trustProxy: true } : {}),
      })
    })
    const notFound: RequestListener = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the servers are at ${servers.map((server) => `/${server.name}/mcp`).join(', ')}\n`)
    }
    return {
      origin,
      as: undefined,
      issuer: metadata.issuer,
      host: hosts[0]!,
      mcp: apps[0]!,
      servers: serverJobs(apps),
      handler: prefixRouter(
        servers.map((server, i) => ({ prefix: `/${server.name}`, handler: apps[i]!.handler })),
        notFound,
      ),
      health: async () => true,
      async close() {
        await Promise.all(apps.map((app) => app.close()))
        await closeHosts()
        await closeValues?.()
      },
    }
  } catch (error) {
    await closeHosts()
    await closeValues?.()
    throw error
  }
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
