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
  cli: {
    /** Interface servers bind unless told otherwise: loopback, never all interfaces by default. */
    host: '127.0.0.1',
    /** Port servers listen on; 0 asks the OS for an ephemeral port. */
    port: 0,
  },
} as const

export type Defaults = typeof defaults
