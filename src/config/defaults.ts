/**
 * Every default of mcp-auth, one commented entry per option. Nothing else in `src/` carries a
 * literal timeout, size or limit: modules read them from here, so the docs and the code agree.
 */
export const defaults = {
  protocol: {
    /**
     * Timeout in ms for an outgoing JSON-RPC request. 60 s matches what MCP clients commonly
     * expect; a request that takes longer should report progress.
     */
    requestTimeoutMs: 60_000,
    /**
     * Whether a progress notification for an outgoing request restarts its timeout. Off: a peer
     * must not be able to keep a request alive forever unless the caller opts in.
     */
    resetTimeoutOnProgress: false,
    /**
     * Hard ceiling in ms for one outgoing request, whatever progress arrives. 10 minutes.
     */
    maxTotalTimeoutMs: 600_000,
    /**
     * Most pending outgoing requests one endpoint keeps at once; further requests are refused
     * locally so a stuck peer cannot make us grow without bound.
     */
    maxPendingRequests: 10_000,
  },
  server: {
    /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. */
    pageSize: 100,
    /** Most values one completion/complete result may carry (MCP: at most 100). */
    maxCompletionValues: 100,
  },
  stdio: {
    /**
     * Largest line (bytes) the stdio framing buffers before it gives up on the peer: a line
     * without a newline cannot grow memory without bound. 16 MiB fits large base64 resources.
     */
    maxLineBytes: 16 * 1024 * 1024,
    /** After closing a child's stdin, how long (ms) to wait for it to exit before SIGTERM. */
    closeGraceMs: 2_000,
    /** After SIGTERM, how long (ms) to wait before SIGKILL. */
    killGraceMs: 2_000,
    /**
     * Environment variables a spawned server inherits from ours (plus what the caller passes).
     * A minimal set so secrets in our environment do not leak into a child by default.
     */
    inheritedEnv:
      process.platform === 'win32'
        ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
        : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR'],
  },
  streamableHttp: {
    /** Path of the Streamable HTTP endpoint (MCP 2025-03-26 and later). */
    path: '/mcp',
    /**
     * Largest POST body accepted (bytes); larger ones get 413 before they are parsed. 4 MiB
     * fits large tool arguments without letting one request hold unbounded memory.
     */
    maxBodyBytes: 4 * 1024 * 1024,
    /**
     * On: answer a POST with application/json when its response is all there is to send, and
     * switch to SSE as soon as the handler sends progress, notifications or requests first.
     * Off (the default, as most servers do): every POST that carries requests is answered with SSE.
     */
    preferJsonResponse: false,
    /** An idle session (no request for this long, ms) is ended and its resources released. 30 min. */
    sessionIdleMs: 30 * 60_000,
    /** How often (ms) idle sessions are looked for. */
    sessionSweepMs: 60_000,
    /** Most sessions one process holds at once; initialize beyond it gets 503. */
    maxSessions: 10_000,
    /** Keep-alive comment interval (ms) on idle SSE streams, below common proxy idle timeouts. */
    keepAliveMs: 15_000,
    /** SSE `retry:` (ms) sent to clients: how long to wait before reconnecting a dropped stream. */
    retryMs: 1_000,
    /** Events kept per stream for resumption with Last-Event-ID (oldest dropped first). */
    maxEventsPerStream: 1_000,
    /**
     * Streams per session whose events are kept (each POST answered with SSE is one); the oldest
     * is forgotten first, so a long session does not grow without bound.
     */
    maxStreamsPerSession: 100,
  },
  httpClient: {
    /**
     * How long (ms) an HTTP client request may take until its response headers arrive. SSE bodies
     * then stream for as long as the server keeps them open.
     */
    requestTimeoutMs: 30_000,
    /** First wait (ms) before reconnecting a dropped SSE stream when the server sent no `retry:`. */
    reconnectInitialDelayMs: 1_000,
    /** Longest wait (ms) between reconnection attempts. */
    reconnectMaxDelayMs: 30_000,
    /** Each failed reconnection multiplies the wait by this. */
    reconnectGrowth: 1.5,
    /** Reconnection attempts in a row before a stream is given up (reported via onerror). */
    reconnectMaxRetries: 5,
  },
  httpChecks: {
    /**
     * Distinct Accept / Host header values whose verdicts are remembered (the same few values
     * arrive on every request); past it the memory is cleared, so odd values cannot grow it.
     */
    rememberedVerdicts: 256,
  },
  legacySse: {
    /** Path of the 2024-11-05 HTTP+SSE stream (GET). */
    ssePath: '/sse',
    /** Path the legacy client POSTs messages to (with ?sessionId=…). */
    messagesPath: '/messages',
  },
  statelessJson: {
    /** Path of the stateless JSON-only endpoint (POST only, application/json only, no sessions). */
    path: '/rest',
  },
  cli: {
    /** Interface servers bind unless told otherwise: loopback, never all interfaces by default. */
    host: '127.0.0.1',
    /** Port servers listen on; 0 asks the OS for an ephemeral port. */
    port: 0,
  },
} as const

export type Defaults = typeof defaults
