import { defaults } from '../../../config/defaults.js'
import { InMemoryEventStore, type EventStore } from '../../../sessions/event-store.js'
import type { MessageBus } from '../../../sessions/message-bus.js'
import type { SessionStore } from '../../../sessions/session-store.js'

export interface StreamableHttpOptions {
  /** No sessions, no GET stream: every POST stands alone (the server is still built once). */
  stateless?: boolean
  /** Answer with application/json when possible (default), or always with SSE. */
  preferJsonResponse?: boolean
  maxBodyBytes?: number
  sessionIdleMs?: number
  maxSessions?: number
  /** Most live sessions of one principal (or, without auth, one client address). */
  maxSessionsPerPrincipal?: number
  /** Most open 2026-07-28 subscriptions/listen streams, in all and per principal. */
  maxListenStreams?: number
  maxListenStreamsPerPrincipal?: number
  keepAliveMs?: number
  retryMs?: number
  /** Hosts accepted in the Host header (and, by default, in Origin). Required. */
  allowedHosts: readonly string[]
  /** Origins accepted; default: those whose host is an allowed host. */
  allowedOrigins?: readonly string[] | undefined
  /**
   * Where session state is kept for other processes (or handlers) to pick a session up. None by
   * default: a live session is found in this handler's own memory, so a copy there would only cost.
   */
  sessionStore?: SessionStore | undefined
  eventStore?: EventStore
  /**
   * Several processes behind one load balancer serve the same sessions, over this bus (a
   * `RedisConnection`, or `redisMcpOptions(connection).bus`): a message a session sends
   * with no request stream to carry it reaches the process holding its GET stream; the client's
   * answer to a request another process sent (elicitation, sampling, roots), or its
   * notifications/cancelled for a request another process handles, is forwarded there; DELETE
   * ends the session in every process. Give the McpServer the same bus (`shareNotifications`)
   * for list changes and resource updates. Use with a shared `sessionStore` and `eventStore`.
   */
  bus?: MessageBus | undefined
}

/** The options with every default filled in (from config/defaults.ts); `bus` is read from the options as given. */
export type ResolvedStreamableHttpOptions = Required<Omit<StreamableHttpOptions, 'allowedOrigins' | 'sessionStore' | 'bus'>> &
  Pick<StreamableHttpOptions, 'allowedOrigins' | 'sessionStore'>

export function resolveStreamableHttpOptions(options: StreamableHttpOptions): ResolvedStreamableHttpOptions {
  const d = defaults.streamableHttp
  return {
    stateless: false,
    preferJsonResponse: d.preferJsonResponse,
    maxBodyBytes: d.maxBodyBytes,
    sessionIdleMs: d.sessionIdleMs,
    maxSessions: d.maxSessions,
    maxSessionsPerPrincipal: d.maxSessionsPerPrincipal,
    maxListenStreams: d.maxListenStreams,
    maxListenStreamsPerPrincipal: d.maxListenStreamsPerPrincipal,
    keepAliveMs: d.keepAliveMs,
    retryMs: d.retryMs,
    eventStore: new InMemoryEventStore(),
    ...options,
  }
}
