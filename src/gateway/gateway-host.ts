import { defaults } from '../config/defaults.js'
import type { JsonRpcParams, JsonRpcRequest } from '../jsonrpc/index.js'
import type { AuthInfo } from '../auth-info/auth-info.js'
import type { HostedSession, RequestMeta, SessionHost, SessionlessIo } from '../session-host/session-host.js'
import { readRequestMeta } from '../session-host/read-request-meta.js'
import type { ChildFactory } from './child-factory.js'
import { ChildPool } from './child-pool.js'
import { ChildSession } from './child-session.js'
import { LongLivedChildren } from './long-lived-children.js'
import { MultiplexedSession } from './multiplexed-session.js'
import { principalOf } from './principal.js'
import { checkStatelessRequest, serveStatelessRequest } from './serve-stateless.js'

export interface GatewayHostOptions {
  /** Starts a child: `stdioChildren(...)` for a stdio program. */
  factory: ChildFactory
  /**
   * One child for everyone, for servers that keep no per-user state: requests multiplexed (ids
   * and progress tokens rewritten); what cannot be attributed to one caller (the child's
   * sampling, elicitation and roots requests, its log notifications) refused or dropped.
   */
  shared?: boolean
  maxChildren?: number
  maxChildrenPerPrincipal?: number
  /** A stateless principal's child ends after this long without a request. */
  childIdleMs?: number
  initializeTimeoutMs?: number
  restartDelayMs?: number
  maxRestartDelayMs?: number
  /** Told what the children write on stderr and what the gateway refuses or drops, a line each. */
  log?: (line: string) => void
  /** How the gateway names itself to the children it initializes. */
  clientInfo?: { name: string; version: string }
}

/**
 * The gateway as a session host: the HTTP transports (Streamable HTTP, HTTP+SSE, the JSON
 * endpoint, 2026-07-28 requests) are handed it as they are handed an McpServer, and it serves
 * their sessions from child processes. A stateful session gets its own child (started at
 * initialize, ended with the session); stateless clients are served by one long-lived child per
 * principal that the gateway initialized itself; `shared` runs one child for everyone. Children
 * never cross principals (issuer, subject and client of the token) unless `shared`.
 *
 * @example
 * const host = new GatewayHost({ factory: stdioChildren({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], log: console.error }) })
 * const app = createProtectedMcpApp(host, { host: '127.0.0.1', origin, issuer })
 */
export class GatewayHost implements SessionHost {
  /** A session's child runs in this process only: other nodes forward its requests here. */
  readonly pinnedSessions = true
  readonly pool: ChildPool
  readonly #options: GatewayHostOptions
  readonly #longLived: LongLivedChildren
  readonly #sessions = new Set<HostedSession>()
  readonly #sweep: NodeJS.Timeout
  readonly #log: (line: string) => void

  constructor(options: GatewayHostOptions) {
    const g = defaults.gateway
    this.#options = options
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`))
    this.pool = new ChildPool({
      ...(options.maxChildren !== undefined ? { maxChildren: options.maxChildren } : {}),
      ...(options.maxChildrenPerPrincipal !== undefined ? { maxChildrenPerPrincipal: options.maxChildrenPerPrincipal } : {}),
      ...(options.restartDelayMs !== undefined ? { restartDelayMs: options.restartDelayMs } : {}),
      ...(options.maxRestartDelayMs !== undefined ? { maxRestartDelayMs: options.maxRestartDelayMs } : {}),
    })
    const idleMs = options.childIdleMs ?? g.childIdleMs
    this.#longLived = new LongLivedChildren({
      pool: this.pool,
      factory: options.factory,
      shared: options.shared === true,
      idleMs,
      initializeTimeoutMs: options.initializeTimeoutMs ?? g.initializeTimeoutMs,
      clientInfo: options.clientInfo ?? { name: 'mcp-auth-gateway', version: '1' },
      log: this.#log,
    })
    this.#sweep = setInterval(
      () => {
        this.#longLived.sweep()
        this.pool.sweep()
      },
      Math.max(50, Math.min(idleMs / 2, 60_000)),
    ).unref()
  }

  /** Long-lived children running (stateless principals', or the shared one). */
  get longLivedChildren(): number {
    return this.#longLived.size
  }

  /**
   * A session for the transports. A stateful one (`authInfo` of the request that initializes it)
   * holds a place for its own child; over a cap this throws the refusal (429 / 503, Retry-After),
   * which the transport answers before anything else.
   */
  createSession(options?: { strictLifecycle?: boolean; authInfo?: AuthInfo | undefined }): HostedSession {
    if (options?.strictLifecycle === false || this.#options.shared === true) {
      return this.#track(new MultiplexedSession(this.#longLived, { stateful: options?.strictLifecycle !== false }))
    }
    const principal = principalOf(options?.authInfo)
    const slot = this.pool.reserve(principal.key)
    const o = this.#options
    return this.#track(
      new ChildSession(
        { pool: this.pool, factory: o.factory, initializeTimeoutMs: o.initializeTimeoutMs ?? defaults.gateway.initializeTimeoutMs, log: this.#log },
        principal,
        slot,
      ),
    )
  }

  #track(session: HostedSession): HostedSession {
    this.#sessions.add(session)
    const previous = session.onclose
    session.onclose = () => {
      this.#sessions.delete(session)
      previous?.()
    }
    return session
  }

  /**
   * Before a stateless request is served (2026-07-28, a stateless POST, the JSON endpoint): the
   * principal's child runs or may start; else the refusal (429 / 503, Retry-After).
   */
  admitStateless(authInfo: AuthInfo | undefined): void {
    const child = this.#longLived.acquire(principalOf(authInfo))
    // a start that fails is answered by the request it serves
    if ('then' in child) child.catch(() => {})
  }

  readStatelessMeta(params: JsonRpcParams | undefined): RequestMeta {
    return readRequestMeta(params)
  }

  checkStateless(meta: RequestMeta, method: string): void {
    checkStatelessRequest(meta, method)
  }

  serveStateless(request: JsonRpcRequest, meta: RequestMeta, io: SessionlessIo): Promise<Record<string, unknown>> {
    return serveStatelessRequest(this.#longLived, request, meta, io)
  }

  /** The child's tools are its own: the gateway checks no `Mcp-Param-*` header against a schema it does not hold. */
  getTool(): undefined {
    return undefined
  }

  /** End every session and child (a drain): each child's stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    clearInterval(this.#sweep)
    await Promise.all([...this.#sessions].map((session) => session.close()))
    await this.#longLived.close()
  }
}
