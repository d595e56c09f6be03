/**
 * Every default of mcp-auth, one commented entry per option. Nothing else in `src/` carries a
 * literal timeout, size or limit: modules read them from here, so the docs and the code agree.
 */
/**
 * The JWS algorithms a resource server accepts, on access tokens and on DPoP proofs alike: the
 * asymmetric ones only (never `none`; no HMAC, since a resource holds no key shared with the
 * authorization server or the client). One list, so the two cannot drift apart.
 */
const asymmetricJwsAlgorithms = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'] as const

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
  client: {
    /**
     * Most pages `listAllTools` and friends follow before giving up: a server handing out new
     * cursors forever must not keep the client busy forever.
     */
    maxListPages: 1_000,
    /**
     * Most input-required rounds (2026-07-28 multi-round results) one call answers before it
     * gives up: a server asking forever must not keep the client (and its user) busy forever.
     */
    maxInputRounds: 16,
  },
  server: {
    /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. */
    pageSize: 100,
    /** Most values one completion/complete result may carry (MCP: at most 100). */
    maxCompletionValues: 100,
    /**
     * How long (ms) a multi-round request's `requestState` stays valid (2026-07-28 MRTR): long
     * enough for a person to answer an elicitation, short enough to bound replay.
     */
    requestStateTtlMs: 10 * 60_000,
    /** Largest `requestState` (characters) the server issues or accepts: bounds what a client makes us decrypt and parse. */
    maxRequestStateBytes: 64 * 1024,
    /** Most input rounds one request may take before it must start again (a loop guard). */
    maxInputRounds: 16,
    /**
     * Caching hints on 2026-07-28 results (`ttlMs`, `cacheScope`), per registry. Safe defaults:
     * immediately stale and private to the caller's authorization context; a server whose lists
     * do not change per user raises them with McpServerOptions.cacheHints.
     */
    cacheHints: {
      'server/discover': { ttlMs: 0, cacheScope: 'private' },
      'tools/list': { ttlMs: 0, cacheScope: 'private' },
      'prompts/list': { ttlMs: 0, cacheScope: 'private' },
      'resources/list': { ttlMs: 0, cacheScope: 'private' },
      'resources/templates/list': { ttlMs: 0, cacheScope: 'private' },
      'resources/read': { ttlMs: 0, cacheScope: 'private' },
    } as Record<string, { ttlMs: number; cacheScope: 'public' | 'private' }>,
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
  gateway: {
    /**
     * Most children (stdio server processes) running at once, over every principal: a stateful
     * session's own child, a stateless principal's long-lived one. A new one over the cap is
     * refused with 503 and `Retry-After` (each child is a whole process: ~30-60 MiB for a Node server).
     */
    maxChildren: 64,
    /**
     * Most children one principal (subject + client) runs at once: one client cannot take every
     * process slot of the gateway. Over it: 429 with `Retry-After`.
     */
    maxChildrenPerPrincipal: 4,
    /**
     * A stateful session's child ends with its session; a stateless principal's child ends after
     * this long (ms) without a request. 10 min: a stdio server is cheap to keep, costly to start.
     */
    childIdleMs: 10 * 60_000,
    /**
     * How long (ms) a child may take to answer `initialize` before it is stopped and the request
     * refused. 30 s covers an `npx` or `uvx` first start that downloads the server.
     */
    initializeTimeoutMs: 30_000,
    /**
     * After a child exits unexpectedly (at start or mid-call), the next start for the same
     * principal waits this long (ms), doubling per failure up to `maxRestartDelayMs`; a request in
     * that time is refused with `Retry-After`. A healthy minute resets it.
     */
    restartDelayMs: 1_000,
    /** The longest wait (ms) between restarts of a child that keeps failing. */
    maxRestartDelayMs: 60_000,
    /** A child that ran this long (ms) without failing starts its next failure count from zero. */
    restartResetMs: 60_000,
    /**
     * Lines a child may write to stdout that are not JSON-RPC before the gateway stops logging
     * each one (it logs a count after that): a chatty server cannot fill the log.
     */
    maxLoggedNoise: 5,
    /** Longest line (bytes) of a child's stderr copied to the log; the rest of the line is cut. */
    maxStderrLineBytes: 4096,
    /**
     * `Retry-After` (s) of a refusal over the caps: a session or an idle child ends within about
     * this long in a busy deployment, and a client that retries sooner only adds load.
     */
    capRetryAfterSeconds: 30,
    /** The protocol version the gateway asks of a child it initializes itself (stateless and shared children); the child may answer an older one. */
    childProtocolVersion: '2025-11-25',
    /**
     * Lifetime (s) of the principal JWT the gateway sends an upstream HTTP server (`--upstream`)
     * in place of the caller's token. Short: the upstream only needs to know whom a request is for
     * now, and a token that leaks from its logs is soon worthless. 5 min, renewed as it nears expiry.
     */
    principalTokenTtlSeconds: 300,
    /**
     * A principal JWT this close (s) to its expiry is replaced by a fresh one before the next
     * request to the upstream, so a long session always sends one the upstream accepts (with
     * room for some clock skew between the two).
     */
    principalTokenRenewBeforeSeconds: 60,
    /** The header that carries the principal JWT to an upstream HTTP server, unless `--upstream-header` names another. */
    upstreamHeader: 'X-MCP-Auth-Principal',
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
    /**
     * An idle session (no request for this long, ms) is ended and its resources released. 30 min.
     * With a shared store (Redis) a process only drops its own copy; the store expires the session
     * once no process used it for this long.
     */
    sessionIdleMs: 30 * 60_000,
    /**
     * Messages of a session kept for its GET stream before the client opens it (a server's
     * request right after initialize, before the client's GET); past this the oldest are dropped,
     * so a client that never opens one costs a bounded amount.
     */
    maxKeptBeforeGet: 100,
    /** How often (ms) idle sessions are looked for. */
    sessionSweepMs: 60_000,
    /**
     * Most sessions one process holds at once. At the cap a new session ends the least recently
     * used one idle for `evictIdleAfterMs`; when there is none, initialize gets 503. With a shared
     * store (Redis) it also caps the sessions of all processes together.
     */
    maxSessions: 10_000,
    /**
     * Most live sessions of one principal (token subject + client; on a server without auth, one
     * client address, IPv6 by /64). Beyond it the principal's least recently used idle session is
     * ended; 429 when all of them are busy. A real client holds a handful; 9,999 initialize calls
     * from one token must not fill the process-wide table and lock everyone else out. With a shared
     * store (Redis) it counts across all processes, and only a session unused for
     * `evictIdleAfterMs` is ended to make room (the store cannot see which are busy elsewhere).
     */
    maxSessionsPerPrincipal: 32,
    /**
     * Most open 2026-07-28 `subscriptions/listen` streams in one process, and per principal (or
     * client address without auth): each holds a socket and a little memory for as long as the
     * client keeps it; the cap per principal keeps one client from taking them all.
     */
    maxListenStreams: 10_000,
    /** Most open `subscriptions/listen` streams of one principal (or client address), as above. */
    maxListenStreamsPerPrincipal: 32,
    /**
     * At the process-wide cap, a session idle (no request, no open stream) for this long (ms) may
     * be ended to make room for a new one; fresh and busy sessions never are. 1 minute.
     */
    evictIdleAfterMs: 60_000,
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
    /**
     * `Retry-After` (s) on the 503 answered while the shared session store (Redis) cannot be
     * reached. The Redis client retries every 2 s at most, so 5 s lets it reconnect first.
     */
    storageRetryAfterSeconds: 5,
    /**
     * With a shared session store, how long (ms) a process trusts its live copy of a session before
     * it asks the store again (and renews the idle expiry there). A session ended through another
     * process is closed here at once when the processes share a bus (its end is announced); without
     * one, within this long. 1 s: a busy session costs one store round trip per second instead of
     * one per request, and the idle expiry (30 min) never notices.
     */
    sharedSessionRecheckMs: 1_000,
    /**
     * With several processes, how long (ms) a process waits for the process that runs a pinned
     * session (a gateway session's child) to acknowledge the requests it forwarded there. No
     * acknowledgement in time means that process is gone: the client gets 404 (-32001) and
     * starts a new session. 2 s: the bus answers within milliseconds; a drained process's
     * sessions are announced ended, so this only waits on a process that died.
     */
    forwardAckMs: 2_000,
    /**
     * When a process closes (a drain), how long (ms) the requests other processes forwarded to its
     * pinned sessions get to finish before those sessions end. 10 s: as long as a drain gives the
     * requests it received itself (`cli.drainTimeoutMs`); a call that waits on the client (a
     * sampling request nobody answers) does not hold the process forever.
     */
    forwardedDrainMs: 10_000,
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
  storage: {
    /** Directory for embedded storage, signing keys and secrets (created 0700; files 0600). */
    dataDir: './data',
    /**
     * File name of the embedded store's marker inside the data directory: its format version (2),
     * so that an older build refuses the directory instead of starting empty. In format 1 it held
     * the whole store; such a file is migrated on first start and kept as `<dbFile>.v1-backup`.
     */
    dbFile: 'mcp-auth.json',
    /** The embedded store's snapshot (one record per line), beside the marker. */
    snapshotFile: 'mcp-auth.snapshot',
    /** The embedded store's append-only journals, `<journalFile>.<generation>`, beside the marker. */
    journalFile: 'mcp-auth.journal',
    /** Suffix of the format-1 store kept after its migration. */
    v1BackupSuffix: '.v1-backup',
    /**
     * When the embedded store writes a fresh snapshot in the background (a compaction): once the
     * journal holds more than `minJournalBytes` and more than `journalRatio` times the snapshot, so a
     * compaction's cost (the whole store) is spread over as many bytes of writes.
     */
    compaction: {
      /** No compaction while the journal is smaller than this (bytes): a small store is not rewritten for every few writes. */
      minJournalBytes: 16 * 1024 * 1024,
      /** Nor while the journal is smaller than this many times the snapshot: each compaction's cost, the whole store, is paid for by half as many bytes of writes, and a start replays at most half a snapshot's worth of journal. */
      journalRatio: 0.5,
      /** Bytes of snapshot serialized between two yields to the event loop. */
      chunkBytes: 256 * 1024,
    },
    /**
     * How often (ms) expired records are swept from the embedded store, so the file does not grow
     * without bound. Expiry is also checked on every read.
     */
    sweepIntervalMs: 10 * 60_000,
    /**
     * File a node on Redis writes in its data directory (the Redis URL without its password, and
     * the prefix), so an administration command pointed at that directory without --redis refuses
     * instead of writing a local store no node reads, and says where the nodes read (issue 27).
     */
    redisMarkerFile: 'redis-store.json',
  },
  redis: {
    /** Prefix of every key and pub/sub channel we use, so several deployments can share one Redis. */
    prefix: 'mcp-auth:',
    /** How long (ms) a start waits for Redis before it gives up with a clear error. */
    connectTimeoutMs: 5_000,
    /**
     * How long (ms) one command may take before it fails. While Redis is unreachable commands fail
     * at once (no offline queue): a request answers 503 instead of hanging.
     */
    commandTimeoutMs: 2_000,
    /** Longest pause (ms) between reconnection attempts; they go on forever, so service resumes when Redis returns. */
    reconnectMaxDelayMs: 2_000,
  },
  resourceServer: {
    /** Allowed clock skew (seconds) for `exp` / `nbf` / `iat` of access tokens. */
    clockToleranceSeconds: 5,
    /** JWS algorithms accepted on access tokens (never `none`; no HMAC: the resource holds no shared key). */
    algorithms: asymmetricJwsAlgorithms,
    /** JOSE `typ` required on JWT access tokens (RFC 9068 §2.1). */
    jwtTyp: 'at+jwt',
    /** Timeout (ms) fetching the authorization server's JWKS or metadata. */
    fetchTimeoutMs: 5_000,
    /** After an unknown `kid`, the JWKS is refetched at most this often (ms). */
    jwksCooldownMs: 30_000,
    /** A fetched JWKS is kept this long (ms) before it is refreshed on the next unknown kid. */
    jwksMaxAgeMs: 10 * 60_000,
    /**
     * Verified JWT access tokens are remembered (keyed by the exact token) for at most this long
     * (ms) and never past their `exp`, so a client reusing its token does not pay a signature
     * check per request. Bounded so a key removed from the JWKS stops being honoured soon. 0: off.
     */
    jwtCacheMs: 60_000,
    /** Most verified JWTs remembered at once (oldest dropped first). */
    jwtCacheEntries: 10_000,
    /** Timeout (ms) of one introspection request (RFC 7662). */
    introspectionTimeoutMs: 5_000,
    /** Introspection results cached at most this long (ms), and never past the token's expiry. */
    introspectionCacheMs: 60_000,
    /** Most introspection results cached at once (oldest dropped first). */
    introspectionCacheEntries: 10_000,
    /** CORS preflight cache (seconds) for the metadata and MCP endpoints. */
    corsMaxAgeSeconds: 600,
    /** DPoP (RFC 9449) proofs at the resource server. */
    dpop: {
      /** Asymmetric JWS algorithms accepted on DPoP proofs (never `none`, never HMAC). */
      algorithms: asymmetricJwsAlgorithms,
      /** A proof's `iat` may be this many seconds in the past or the future (RFC 9449 §11.1). */
      iatWindowSeconds: 60,
      /** Most proof `jti`s remembered per process for replay detection (the oldest forgotten first; each for the `iat` window). */
      replayCacheEntries: 100_000,
      /** Most `jti`s remembered per token thumbprint (per principal): one client cannot flush the others' entries. */
      replayEntriesPerKey: 10_000,
      /** A server nonce (`DPoP-Nonce`) is valid for this long (ms); a new one is handed out half-way. */
      nonceLifetimeMs: 5 * 60_000,
      /** Longest DPoP header (bytes) read; a larger one is refused before any parsing. */
      maxProofBytes: 8_192,
    },
  },
  /**
   * Every fetch the authorization server makes (src/net/outbound-fetch.ts over guarded-fetch.ts):
   * a trusted issuer's discovery and `jwks_uri`, the upstream identity provider, client ID
   * metadata documents and clients' `jwks_uri`. Each is resolved first, refused on a private or
   * special-use address unless its configuration allows that explicitly (never for a URL a client
   * chose), bounded in time and size, and never redirected: a 3xx is an error, since each hop
   * would need its address checked again and metadata and keys are served where they are named.
   */
  outbound: {
    /**
     * Budget (ms) of one fetch of a server the operator configured (trusted issuer, upstream
     * identity provider): name resolution, connection, TLS, headers and body together.
     */
    timeoutMs: 5_000,
    /**
     * Budget (ms) of one fetch of a URL a client chose (a document, a client's jwks_uri): shorter,
     * since the client waits on it and an attacker picks a URL that never answers.
     */
    clientUrlTimeoutMs: 2_500,
    /**
     * Largest response body (bytes) of any fetch (metadata, JWKS, token and userinfo responses):
     * a longer body is cut off while it is read, so a hostile or broken server cannot make us
     * hold megabytes. Real JWKS and metadata documents are a few KiB.
     */
    maxBytes: 64 * 1024,
  },
  authServer: {
    /**
     * Issuer of the standalone authorization server when none is configured (development only:
     * HTTPS is required for any issuer that is not a loopback host).
     */
    issuer: 'http://localhost:4000',
    /**
     * Scopes every MCP resource offers unless configured otherwise. `offline_access` is always
     * accepted (refresh tokens, see `refreshTokens`).
     */
    resourceScopes: ['mcp'],
    /**
     * What the consent page says a scope lets an application do, for scopes a resource offers
     * without describing them itself (`scopeDescriptions`). A scope found in neither is shown as
     * one the server did not describe.
     */
    scopeDescriptions: {
      mcp: 'Use this MCP server as you: list and call its tools, read its resources and prompts',
      'mcp:admin': 'Use its administrator tools as well',
    } as Record<string, string>,
    /** Scopes the server knows besides resource scopes (OIDC ones for clients that ask for them). */
    oidcScopes: ['openid', 'profile', 'email', 'offline_access'],
    /** Signing algorithm of JWT access tokens (RFC 9068) and the key type generated for it. */
    accessTokenAlg: 'ES256',
    /** Lifetimes in seconds. */
    ttl: {
      /** JWT access tokens: short, since a resource server cannot revoke a JWT before it expires. */
      accessToken: 60 * 60,
      /** Authorization codes: single use, redeemed within seconds by real clients. */
      authorizationCode: 60,
      /** Client credentials tokens. */
      clientCredentials: 10 * 60,
      /** Refresh tokens (each rotation issues a new one with a fresh lifetime). 14 days. */
      refreshToken: 14 * 24 * 60 * 60,
      /** A grant (a user's consent to a client) lives as long as the longest refresh chain. 30 days. */
      grant: 30 * 24 * 60 * 60,
      /** The login/consent interaction, from redirect to decision. */
      interaction: 10 * 60,
      /** The browser session at the authorization server. 1 day. */
      session: 24 * 60 * 60,
      /** ID tokens (only when a client asks for `openid`). */
      idToken: 60 * 60,
    },
    refreshTokens: {
      /**
       * Issue a refresh token to every client allowed the refresh_token grant, whether or not it
       * asked for `offline_access`: MCP clients expect one after an ordinary consent.
       */
      issueWithoutOfflineAccess: true,
      /**
       * Seconds after rotation during which the previous refresh token is still honoured once
       * more (a client whose response was lost is not logged out). 0 disables the grace; outside
       * it a replay revokes the whole grant.
       */
      reuseGraceSeconds: 30,
    },
    registration: {
      /** Open dynamic client registration (RFC 7591). Off, or an initial access token, closes it. */
      enabled: true,
      /**
       * Dynamically registered clients that never complete an authorization or token request in
       * this many seconds are deleted. 7 days.
       */
      unusedClientTtlSeconds: 7 * 24 * 60 * 60,
      /**
       * Largest registration request body (bytes); larger ones get 413. An MCP client registers
       * in under 1 KiB; 8 KiB leaves room for a JWKS and bounds what one registration can store.
       */
      maxBodyBytes: 8 * 1024,
      /** Longest string in client metadata (characters): URIs, names, keys. */
      maxMetadataString: 2_000,
      /** Most entries of a list in client metadata (redirect_uris, contacts, grant_types, jwks keys…). */
      maxMetadataList: 10,
      /**
       * Registrations not used yet (no authorization or token request) one address group (an IPv4
       * address, an IPv6 /64) may hold at once, and all groups together: the store cannot be grown
       * without bound by open registration. A client registers once and uses it at once, so 20 is
       * room for a busy NAT while 250 groups are needed to fill the store; when it is full, a group
       * holding the most is refused and others displace its oldest (see registrationLimits).
       * Unused ones still expire after `unusedClientTtlSeconds`.
       */
      maxUnusedPerAddress: 20,
      /** Registrations not used yet that all address groups together may hold, as above. */
      maxUnused: 5_000,
      /**
       * Retry-After (s) of a registration refused for those caps: they free up as registrations
       * are used, deleted or swept, which is not soon for a group that hoards them.
       */
      refusedRetryAfterSeconds: 3600,
      /** Refused registrations are summed up in the log once per this window (ms), not logged one by one. */
      refusalSummaryMs: 60_000,
      /**
       * With several nodes (Redis): clients each node remembers having seen used. The first use
       * of a client a node sees takes it off the unused list in storage, in case that node missed
       * the registration's announcement; remembering spares the write afterwards. Oldest first.
       */
      maxSeenUsed: 10_000,
    },
    clientIdMetadataDocuments: {
      /** Accept https client_id URLs that point at a client ID metadata document. */
      enabled: true,
      /** Development only (refused unless the issuer is a loopback host): allow documents on private, loopback and link-local addresses. */
      allowPrivateAddresses: false,
      /** A failed fetch of a URL is not tried again for this long (seconds), nor answered slowly twice. */
      failureCacheSeconds: 10,
      /** Failed URLs remembered at once (oldest forgotten first). */
      failureCacheEntries: 1_000,
      /** Largest document (bytes). */
      maxBytes: 16 * 1024,
      /** Cache bounds (seconds) around the document's HTTP cache headers. */
      cacheMinSeconds: 60,
      /** Longest a fetched document is kept (seconds), whatever its cache headers say. 1 day. */
      cacheMaxSeconds: 24 * 60 * 60,
    },
    rateLimits: {
      /** Requests per window per client address on POST /register. */
      registrationPerAddress: 20,
      /** Token endpoint requests per window per client address. */
      tokenPerAddress: 600,
      /** Token endpoint requests per window per client_id. */
      tokenPerClient: 600,
      /** Login form submissions per window per address (password guessing). */
      loginPerAddress: 10,
      /** Login form submissions per window per account name. */
      loginPerAccount: 10,
      /** Window length in seconds. */
      windowSeconds: 60,
      /** Keys remembered at once per limiter; the oldest are forgotten first. */
      maxKeys: 10_000,
      /** Basic `Authorization` headers whose client id is kept read (a client sends the same header each time); the oldest forgotten first. */
      keptBasicHeaders: 1_000,
      /** Longest Basic header whose client id is kept (longer ones are read each time). */
      maxKeptBasicHeaderLength: 1_024,
    },
    keys: {
      /** File in the data directory holding the private signing JWKS (0600). */
      jwksFile: 'jwks.json',
      /** File in the data directory holding cookie and data-encryption secrets (0600). */
      secretsFile: 'secrets.json',
      /** After rotation, how long (seconds) a retired key stays published for verification. */
      retiredKeyLifetimeSeconds: 2 * 24 * 60 * 60,
    },
    /** scrypt parameters for local account passwords (N=2^15, r=8, p=1: ~50 ms, 32 MiB). */
    scrypt: { N: 32_768, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 },
    /** Paths the provider mounts under the issuer (the default-path fallback maps the root ones here). */
    routes: {
      authorization: '/authorize',
      token: '/token',
      registration: '/register',
      jwks: '/jwks',
      revocation: '/token/revocation',
      introspection: '/token/introspection',
      end_session: '/session/end',
      userinfo: '/me',
    },
    /**
     * `Cache-Control: max-age` (seconds) of the authorization server metadata: it changes with
     * the configuration, not per request. 5 minutes keeps a configuration change visible soon.
     */
    metadataMaxAgeSeconds: 300,
    /**
     * Allowed clock skew (seconds) for times in tokens and assertions the authorization server
     * checks (oidc-provider's `clockTolerance`, client assertions' `iat`).
     */
    clockToleranceSeconds: 5,
    /** Where the login/consent interaction lives (under the issuer). */
    interactionPath: '/interaction',
    /** Largest token request body (bytes) read to rate-limit per client; oidc-provider's own cap. */
    maxTokenBodyBytes: 56 * 1024,
    /** Largest form body on the login and consent pages (bytes). */
    maxFormBytes: 16 * 1024,
    /**
     * Retry-After (seconds) of a 503 `temporarily_unavailable` answered while shared storage
     * (Redis) cannot be reached. A little above `redis.reconnectMaxDelayMs`, so a client coming
     * back finds the connection renewed.
     */
    unavailableRetryAfterSeconds: 5,
    /**
     * With several nodes (Redis), how often (ms) each reloads the persisted list of revoked
     * grants. A revocation reaches the other nodes at once over pub/sub; this reload only covers
     * a message a node missed while its subscription was being renewed. 1 minute.
     */
    revocationResyncMs: 60_000,
    /**
     * With several nodes (Redis), how often (ms) each reloads the stored resources. A resource
     * added or removed by `mcp-auth resources --redis` reaches every node at once over pub/sub;
     * this reload only covers a message a node missed. 1 minute, as for revocations.
     */
    resourceResyncMs: 60_000,
    /**
     * How long (ms) a stored resource's claim on an identifier (URI or alias) whose resource was
     * never stored is kept before another resource may take it over: such a claim is either an
     * add under way (milliseconds) or left by a process that stopped in between. 1 minute.
     */
    resourceClaimGraceMs: 60_000,
    /** DPoP (RFC 9449) at the token endpoint (oidc-provider's feature). */
    dpop: {
      /** Server nonces on (RFC 9449 §8): a proof must carry a recent `DPoP-Nonce`. */
      requireNonce: true,
      /**
       * How far (seconds) a proof's `iat` may lie from now at the token, PAR and userinfo endpoints,
       * with a nonce or without: the resource server's window (`resourceServer.dpop.iatWindowSeconds`),
       * so the two accept the same proofs. Replayed proofs are remembered longer (5 minutes).
       */
      iatToleranceSeconds: 60,
    },
    /** Client secrets kept opened in memory (by sealed value; the oldest forgotten first), so a token request does not decrypt one. */
    openedClientSecrets: 1_000,
    /** Dynamic clients whose oidc-provider `Client` is kept per record revision (lowdb, in-memory: see reuseUnchangedClients); the oldest forgotten first. */
    keptClients: 1_000,
    /** Per resource: client_credentials scopes (one per registered `scope`) whose token settings are kept built (see ResourceServerInfos); the oldest forgotten first. */
    keptScopesPerResource: 256,
    /**
     * Administration of the running server (docs/administration.md): the admin API, the console,
     * people's own account page. The API is a protected resource of the server itself, whose one
     * scope only administrators and the machine clients an administrator designates may be granted.
     */
    admin: {
      /** The admin API under the issuer; also its resource identifier (`${issuer}${apiPath}`). */
      apiPath: '/admin/api',
      /** The console's pages under the issuer. */
      consolePath: '/admin',
      /** People's own page (their connected applications, their password) under the issuer. */
      accountPath: '/account',
      /** The scope of the admin API. Never an open registration's, never a resource default for machines. */
      scope: 'mcp-auth:admin',
      /** The scope of people's own page: every local account may have it, no machine. */
      accountScope: 'mcp-auth:account',
      /**
       * Lifetime (seconds) of an admin API access token. Short: every request also checks the
       * account's role and the grant's revocation, but a token that leaves is worth less. 10 minutes.
       */
      accessTokenTtlSeconds: 10 * 60,
      /**
       * How recent (seconds) a person's sign-in must be for any administrative action: older, the
       * API answers 401 `insufficient_user_authentication` with `max_age` (RFC 9470) and the
       * console asks to sign in again. 1 hour.
       */
      maxLoginAgeSeconds: 60 * 60,
      /**
       * How recent (seconds) for a sensitive action (disabling, deleting or demoting an
       * administrator, making one, rotating keys): the person signs in again right before. 5 minutes.
       */
      sensitiveLoginAgeSeconds: 5 * 60,
      /** Lifetime (seconds) of a one-time set-password link an administrator hands out. 1 day. */
      passwordLinkTtlSeconds: 24 * 60 * 60,
      /** Lifetime (seconds) of the one-time link that creates the first administrator. 1 day. */
      setupLinkTtlSeconds: 24 * 60 * 60,
      /** Items per page of a list when the request names no `limit`; `maxPageSize` is the most it may ask. */
      pageSize: 50,
      /** The most items a list request may ask for in one page (`limit`): bounds what one request reads. */
      maxPageSize: 500,
      /** Largest admin API request body (bytes). */
      maxBodyBytes: 64 * 1024,
      /**
       * How often (seconds) a client's last use is written, at most, per client and node: the
       * admin API shows it to this precision, and a token request costs one in-memory lookup
       * instead of a store write. 1 hour.
       */
      clientLastUseIntervalSeconds: 60 * 60,
      /**
       * Clients whose last write of their last use a node remembers (the oldest forgotten first;
       * a forgotten one is written again on its next use): memory stays bounded however many
       * clients there are.
       */
      keptClientLastUses: 10_000,
      /**
       * How long (seconds) a client's last use is kept after it: a client unused that long shows
       * no last use, and one known only by its metadata document drops out of the list. Bounds
       * what anyone publishing metadata documents can make the store hold. 1 year.
       */
      clientLastUseRetentionSeconds: 365 * 24 * 60 * 60,
      /**
       * How often (ms) each node reloads the blocked clients. A block reaches every node at once
       * over pub/sub; this reload only covers a message a node missed. 1 minute, as for revocations.
       */
      blockedClientsResyncMs: 60_000,
      /**
       * Grants a list request reads at most to fill one page when most of what it reads is gone
       * (a consent whose grant expired): it answers a shorter page and a cursor instead.
       */
      maxGrantsScanned: 2_000,
      /** The console and people's own page: a first-party client of the server itself. */
      console: {
        /**
         * `client_id` of the console, a configured confidential client the server adds itself (its
         * secret derived from the data key, so every node holds it); consent is skipped for it.
         */
        clientId: 'mcp-auth-console',
        /** HKDF label of the console client's secret (from the data key). */
        secretPurpose: 'mcp-auth console client',
        /** HKDF label of the key sealing the console's cookies (tokens live only sealed in them). */
        cookiePurpose: 'mcp-auth console cookies',
        /** Cookie of the console's session (path: the console), sealed: its tokens, never readable by scripts. */
        sessionCookie: 'mcp-auth-console',
        /** Cookie of people's own page session (path: that page). */
        accountCookie: 'mcp-auth-account',
        /** Cookie of a sign-in under way (state, PKCE verifier, the page to return to), sealed. */
        flowCookie: 'mcp-auth-console-flow',
        /**
         * How long (seconds) a sign-in under way may take, from the redirect to the callback; also
         * the flow cookie's lifetime. 10 minutes, as the login interaction's.
         */
        flowTtlSeconds: 10 * 60,
        /**
         * Lifetime (seconds) of the console's session cookie: the refresh token inside outlives
         * the access token; re-authentication still follows `maxLoginAgeSeconds`. 12 hours.
         */
        sessionTtlSeconds: 12 * 60 * 60,
        /** An access token this close (seconds) to its expiry is refreshed before it is checked. */
        refreshLeewaySeconds: 30,
      },
      /**
       * How often (seconds) each node of a deployment (Redis) writes its record (host, pid,
       * version, key fingerprints, its gateway children) for `GET /state`, `/keys` and
       * `/children`. 10 s: the state an administrator reads is at most this old.
       */
      nodeHeartbeatSeconds: 10,
      /**
       * How long (seconds) a node's record lives without a heartbeat: three missed beats, so a
       * slow beat never hides a live node and a stopped one is gone within half a minute.
       */
      nodeRecordTtlSeconds: 30,
      /**
       * A node record older than this (seconds) is deleted by the next node that reads the list:
       * long past its lifetime, so no live node's heartbeat races the deletion. 1 hour.
       */
      nodeRecordRemoveAfterSeconds: 60 * 60,
      /**
       * Most gateway children a node publishes in its record for `GET /children` (the gateway's
       * own cap, `gateway.maxChildren`, is usually lower): a record stays a few hundred KB at most.
       */
      maxPublishedChildren: 1000,
      /**
       * Most stored resources the admin API adds: every node keeps them all in memory and reloads
       * the whole list at each change, so a runaway script stops here. 1000 MCP servers.
       */
      maxStoredResources: 1000,
    },
    /** The JWT bearer grant (RFC 7523 §2.1) for machine clients. */
    jwtBearer: {
      /** Longest lifetime (seconds) of an assertion accepted, counted from now and from its `iat`. */
      maxAssertionLifetimeSeconds: 3600,
      /** Allowed clock skew (seconds) on the assertion's `exp`, `nbf`, `iat` (an `iat` further ahead is refused). */
      clockToleranceSeconds: 30,
      /**
       * A trusted issuer whose discovery failed is tried again after this long (ms), doubling up
       * to `discoveryRetryMaxMs`; meanwhile its assertions are refused (the others are not).
       */
      discoveryRetryMinMs: 1_000,
      /** Longest wait (ms) between two discovery attempts of an unavailable issuer: 5 minutes. */
      discoveryRetryMaxMs: 5 * 60_000,
      /**
       * A trusted issuer's JWKS is fetched again at most this often (ms): on an unknown `kid`
       * (key rotation) or after a failed fetch. As jose's remote JWKS: 30 s.
       */
      jwksCooldownMs: 30_000,
      /** A fetched JWKS is used this long (ms) before the next verification fetches it again. */
      jwksMaxAgeMs: 10 * 60_000,
      /** Largest assertion (bytes) read. */
      maxAssertionBytes: 16_384,
    },
  },
  mainJob: {
    /** Port of `mcp-auth start` (the README's first command). */
    port: 4000,
    /** Host name in the public origin; the server listens on loopback (127.0.0.1 and ::1). */
    publicHost: 'localhost',
    /** Name of the demo account created on first start. */
    demoUsername: 'demo',
    /** Scopes the demo account may be granted: both, so the step-up demo (admin_stats) works. */
    demoScopes: ['mcp', 'mcp:admin'],
    /** Scopes the demo MCP resource offers. */
    scopes: ['mcp', 'mcp:admin'],
    /** Scopes every MCP request needs. */
    requiredScopes: ['mcp'],
    /** Extra scopes per demo tool (a call without them gets 403 insufficient_scope naming them). */
    toolScopes: { admin_stats: ['mcp:admin'] } as Record<string, string[]>,
    /** The demo resource's description on the consent page. */
    description: 'The demo MCP server of mcp-auth start: tools, resources and prompts that show every MCP feature',
  },
  oauthClient: {
    /** Timeout (ms) of every discovery, registration and token request the client makes. */
    requestTimeoutMs: 10_000,
    /** MCP-Protocol-Version sent with discovery requests (MCP 2025-11-25 authorization). */
    protocolVersion: '2025-11-25',
    /** Refresh an access token this many seconds before it expires. */
    refreshSkewSeconds: 60,
    /** How long (ms) the loopback callback waits for the browser to come back. 5 minutes. */
    callbackTimeoutMs: 5 * 60_000,
    /** Path of the loopback redirect URI. */
    callbackPath: '/callback',
    /** Most step-up re-authorizations for one request (403 insufficient_scope). */
    maxStepUps: 2,
    /** Token store file name in the user's config directory (~/.config/mcp-auth/). */
    storeFile: 'tokens.json',
    /** Waiting for the store's cross-process lock: give up after this many ms. */
    storeLockTimeoutMs: 30_000,
    /** JWS algorithm of the client's DPoP key (RFC 9449), one key per authorization server. */
    dpopAlgorithm: 'ES256',
    /** Retries of one request after a `use_dpop_nonce` challenge (RFC 9449 §8, §9). */
    dpopNonceRetries: 1,
    /**
     * When the login helper and the machine clients ask for DPoP-bound tokens (issue 28): `auto`
     * binds only when the resource's metadata says it takes DPoP (RFC 9728
     * `dpop_signing_alg_values_supported` lists our algorithm, or `dpop_bound_access_tokens_required`)
     * and the authorization server lists our algorithm; otherwise Bearer. A resource that never
     * said it verifies proofs (a FastMCP or SDK bearer middleware checking our JWTs) refuses a
     * bound token, so binding by the authorization server's word alone locks clients out.
     */
    dpop: 'auto',
  },
  accountValues: {
    /**
     * Largest value an operator may set for one account (bytes of UTF-8): an API key or a token
     * with room to spare. Each is handed to a gateway child in its environment, where a few such
     * values must still fit the operating system's limit on a process's environment.
     */
    maxValueBytes: 64 * 1024,
    /** Most names one account may hold: per-user credentials for a handful of upstream services, not a configuration store. */
    maxNamesPerSubject: 64,
    /** Longest name (characters): an environment variable's name, not a place to hide data. */
    maxNameLength: 128,
    /**
     * Lifetime (seconds) of the lease a write takes on one subject's record, so two writers (CLI
     * runs on two hosts of a Redis deployment) never lose each other's change. A write holds it for
     * one read and one put; a writer that died releases it when it expires.
     */
    writeLeaseSeconds: 10,
    /** How long (ms) a write waits for another writer's lease on the same subject before it gives up with an error. */
    writeWaitMs: 15_000,
  },
  branding: {
    /**
     * The product name in every page's header and title (login, consent, logout, errors, the home
     * page of `mcp-auth start`) unless `branding.productName` is configured.
     */
    productName: 'mcp-auth',
    /** Longest configured product name (characters): a header line, not a paragraph. */
    maxProductNameLength: 60,
    /**
     * Largest `data:` logo (characters of the URI). 64 KiB holds any sensible logo; every page
     * carries it inline, so a bigger one would slow every sign-in.
     */
    maxLogoDataUriLength: 64 * 1024,
    /** Longest description of a resource or of one scope (characters): a line on the consent page. */
    maxDescriptionLength: 300,
  },
  observe: {
    /**
     * Lowest level the server logs: `info` writes one access line per request, sign-ins, tokens
     * issued and refusals; `warn` only what needs a look; `debug` more. `--log-level` or the
     * variable below sets it.
     */
    logLevel: 'info',
    /** Environment variable naming the log level (trace, debug, info, warn, error, fatal, silent). */
    logLevelVariable: 'MCP_AUTH_LOG_LEVEL',
    /**
     * JSON log lines are written in batches of up to this many bytes (one system call per batch,
     * not one per line: with an access line per request, a call each), flushed at exit. 64 KiB:
     * about 200 access lines; measured with an access line per request (bench:protected
     * --observe), 4 KiB batches cost ~2.5 µs a request more (a write every 13 lines). A process
     * killed with SIGKILL loses at most this much, or `logFlushMs` worth.
     */
    logBufferBytes: 65536,
    /** How often (ms) a batch not yet full is written anyway: a line never waits longer than this. */
    logFlushMs: 100,
    /**
     * Field paths pino censors if a caller ever passes them: a second net, since no caller logs a
     * token, code, secret, password, cookie, assertion or proof in the first place (a test searches
     * every log line of every flow for them).
     */
    redactPaths: [
      'password',
      '*.password',
      'token',
      '*.token',
      'access_token',
      '*.access_token',
      'refresh_token',
      '*.refresh_token',
      'code',
      '*.code',
      'client_secret',
      '*.client_secret',
      'assertion',
      '*.assertion',
      'authorization',
      '*.authorization',
      'cookie',
      '*.cookie',
      'dpop',
      '*.dpop',
    ],
    // ---- the audit trail: where events are kept and for how long ----
    audit: {
      /**
       * File of the audit trail in the data directory (one JSON object per line, 0600), on a
       * single node; rotated files are `audit.jsonl.1` (newest) … `audit.jsonl.N`.
       */
      file: 'audit.jsonl',
      /**
       * Size (bytes) at which the live file is rotated. 16 MiB holds about 40,000 events and is
       * read backwards in well under a second; smaller files make retention finer.
       */
      rotateBytes: 16 * 1024 * 1024,
      /**
       * Rotated files kept at most (the oldest deleted first), whatever their age: with
       * `rotateBytes`, the trail never takes more than about 1 GiB of disk.
       */
      maxFiles: 64,
      /**
       * Time (ms) a rotated file is kept after its last event (its modification time): 90 days,
       * what most incident reviews and audits ask for. Older files are deleted at each rotation
       * and every `retentionCheckMs`.
       */
      retentionMs: 90 * 24 * 60 * 60 * 1000,
      /** How often (ms) a running server deletes rotated files past `retentionMs` (hourly). */
      retentionCheckMs: 60 * 60 * 1000,
      /**
       * How often (ms) at most the writer checks that the file it appends to is still the live one
       * (another process, `mcp-auth` on the same data directory, may have rotated it): a `stat` per
       * batch was ~4% of a token request's CPU. Events of that spell land in the rotated file, none is lost.
       */
      reopenCheckMs: 1000,
      /**
       * Events are written in batches gathered for this long (ms): one write per batch, not one per
       * turn of the event loop (each write a trip through libuv's thread pool, ~10 µs of CPU: at a
       * few thousand tokens a second that was 3% of a token request). `flushed()` waits for it.
       */
      batchMs: 10,
      /**
       * Events waiting to be written, at most: past it an event is dropped and counted (a disk
       * that stopped answering must not grow the server's memory without bound).
       */
      maxQueued: 100_000,
      /**
       * How often (ms) `mcp-auth audit --follow` looks for new events in the file: a quarter of a
       * second feels live and costs one stat per poll.
       */
      followPollMs: 250,
      /**
       * Events a query returns when it names no limit (`mcp-auth audit`, the admin API, the console):
       * a screenful of the newest.
       */
      queryLimit: 100,
      /** Events one query (one admin API page) returns at most, whatever it asks: bounds each read. */
      maxQueryLimit: 1000,
      /** Bytes read at a time when a query reads a file backwards, newest line first. */
      readChunkBytes: 64 * 1024,
      /**
       * Bytes of the file one query reads at most before it stops and hands a cursor to go on (the
       * admin API's next page), so a filter that matches nothing never reads the whole trail at
       * once: 64 MiB, four rotated files, well under a second.
       */
      fileMaxScanBytes: 64 * 1024 * 1024,
      /**
       * Redis: events kept in the deployment's stream (`<prefix>audit`), approximately (`XADD
       * MAXLEN ~`): a million events is a few hundred MiB of Redis memory, months for most
       * deployments. The oldest go first.
       */
      redisMaxLen: 1_000_000,
      /**
       * Redis: the oldest events are also trimmed past this age (ms; `XTRIM MINID`), checked
       * every `retentionCheckMs`; the same 90 days as the file.
       */
      redisRetentionMs: 90 * 24 * 60 * 60 * 1000,
      /** Redis: stream entries one XREVRANGE reads while a query filters (a page of the scan). */
      redisPageSize: 500,
      /**
       * Redis: stream entries a query reads at most before it stops (and the admin API hands a
       * cursor to go on), so a filter that matches nothing never walks the whole stream at once.
       */
      redisMaxScan: 50_000,
      /** Redis: how long (ms) `--follow` blocks in one XREAD before it looks at its signal again. */
      redisFollowBlockMs: 1000,
      /**
       * How often (ms) `mcp-auth audit --follow --server URL` asks the admin API for newer events:
       * every two seconds is live enough for a person and one small request for the server.
       */
      serverFollowPollMs: 2000,
      /** Events `mcp-auth audit --follow` prints before the new ones when no `--limit` is given (as `tail -f`). */
      followBacklog: 10,
    },
    // ---- the audit events: what is recorded by default ----
    events: {
      /**
       * Longest username a failed or rate-limited sign-in event keeps (characters) of what was
       * typed: the name tells an operator which account is being guessed, but the form field is
       * outside input, and one event must not carry a megabyte. 256 holds any real name.
       */
      maxRecordedUsernameLength: 256,
    },
    // ---- Prometheus metrics ----
    metrics: {
      /**
       * Interface the separate metrics listener (`--metrics-port`) binds unless `--metrics-host`
       * says otherwise: loopback, so metrics are never public by accident (a scraper on another
       * host needs the operator to choose an interface, or scrapes `/metrics` with an admin token).
       */
      host: '127.0.0.1',
      /** Path of the metrics on the separate listener and on the main origin (behind the admin scope). */
      path: '/metrics',
      /**
       * Buckets (seconds) of the latency histograms of `/token` and MCP calls: 0.1 ms (a cached
       * tools/call) to 10 s (a slow tool, a token request waiting on storage), about 2.5× apart so
       * a quantile is never more than one bucket off.
       */
      latencyBuckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      /**
       * Most distinct values one label takes (a route template, a refusal reason): past it, new
       * values count as `other`. Routes and reasons are fixed phrases of ours, so 100 is ample;
       * the cap keeps a bug (or an attacker's input reaching a reason) from growing the series
       * without bound.
       */
      maxLabelValues: 100,
    },
    // ---- OpenTelemetry spans ----
    tracing: {
      /** The instrumentation scope name our spans carry (what a trace backend groups them by). */
      tracerName: 'mcp-auth',
      /**
       * Longest tool or prompt name an MCP request's span is named after (`tools/call <name>`);
       * a longer one (a client may send any) leaves the span named after the method alone. 128
       * covers every real tool name and keeps a hostile one out of trace backends' indexes.
       */
      maxNameLength: 128,
    },
    // ---- fair limits per principal on MCP calls ----
    limits: {
      /**
       * Sustained MCP requests per minute one principal (subject + client of the verified token)
       * may make to one resource: a token bucket refilled at this rate. 600 (10 a second) is well
       * above an agent calling tools in a loop or MCP Inspector listing everything, and far below
       * the 4,000 requests in 1.2 s one token could make before (issue 33). `rateLimit: false` on a
       * resource turns limits off there.
       */
      requestsPerMinute: 600,
      /**
       * Requests a principal may make at once on a full bucket, before the rate applies: a client
       * that opens a session, lists tools, resources and prompts and fires a batch of parallel
       * tool calls stays well inside 100; a flood is stopped after 100.
       */
      burst: 100,
      /**
       * The bucket of requests that fail authentication (no token, a bad one, a refused proof),
       * counted per address group (an IPv4 address, an IPv6 /64): once empty, failures are answered
       * 429 instead of 401, so a flood of bad tokens is limited too. A valid token from the same
       * address is never counted here. As generous as a principal's: several people behind one
       * NAT each begin with a 401 when they sign in.
       */
      unauthenticatedRequestsPerMinute: 600,
      /** Burst of the per-address-group bucket of failed authentications (see above). */
      unauthenticatedBurst: 100,
      /**
       * Principals (and address groups) one node keeps a bucket for; past it the oldest bucket is
       * forgotten (it starts full again). 100,000 buckets are ~15 MB; an attacker needs a valid
       * token per principal to add one, or an address group per unauthenticated bucket.
       */
      maxPrincipals: 100_000,
      /**
       * How long (ms) a node answers 429 itself, without asking Redis, for a principal Redis just
       * refused: its bucket cannot hold a token before then, so a flood costs Redis one round trip
       * per refusal window, not one per request.
       */
      localRefusalMaxMs: 60_000,
      /**
       * While Redis cannot be reached, how often (ms) the fall-back to this node's own buckets is
       * logged (a warning naming the error): once per interval, not once per request.
       */
      redisFailureLogIntervalMs: 30_000,
      /**
       * The longest `Retry-After` (seconds) our MCP client waits for before it retries a request
       * answered 429, once. Longer waits are the caller's to decide: the 429 is returned at once.
       * 10 s keeps an interactive client responsive.
       */
      clientRetryAfterMaxSeconds: 10,
      /** JSON-RPC error code of the 429 answer's body (implementation-defined server error range, JSON-RPC 2.0 §5.1). */
      rpcErrorCode: -32029,
    },
  },
  cli: {
    /** Interface servers bind unless told otherwise: loopback, never all interfaces by default. */
    host: '127.0.0.1',
    /** Port servers listen on; 0 asks the OS for an ephemeral port. */
    port: 0,
    /** Time (ms) a client has to send its request headers before the connection is closed. */
    headersTimeoutMs: 10_000,
    /**
     * Time (ms) a client has to send its whole request, body included (408, then closed). 4 MiB,
     * the largest MCP body, takes under 30 s on any link worth serving; a trickling client cannot
     * hold a connection longer. Responses (SSE) are not limited by it.
     */
    requestTimeoutMs: 30_000,
    /** How often (ms) node:http checks those two timeouts (its default, 30 s, would double them). */
    connectionsCheckingIntervalMs: 1_000,
    /**
     * After Ctrl-C, how long (ms) a client command may take to end what it was waiting for (close
     * the login's loopback listener, send notifications/cancelled, end the session) before the
     * process exits anyway. 2 s: those are local or one short request each.
     */
    interruptGraceMs: 2_000,
    /**
     * On SIGTERM/SIGINT a server stops accepting connections, then gives requests in flight this
     * long (ms) to finish before it closes what is left (SSE streams end at once: their clients
     * resume with Last-Event-ID, on another node behind a load balancer). Shorter than the 30 s a
     * container runtime usually waits before SIGKILL.
     */
    drainTimeoutMs: 10_000,
    /**
     * On SIGTERM/SIGINT a server first answers its health endpoint 503 ("draining") and keeps
     * serving for this long (ms), so a load balancer's checks take it out of rotation before it
     * closes anything: set it to at least the balancer's check interval × checks to fail, plus a
     * margin (HAProxy `inter 2s fall 2` as docs/deployment.md shows: 4 s + 1 s). Skipped when no
     * health check came in that time (nothing follows the process: a local run, Ctrl-C).
     * `--drain-delay SECONDS` or MCP_AUTH_DRAIN_DELAY sets it.
     */
    drainDelayMs: 5_000,
    /**
     * How long (ms) a kept-alive connection may stay idle before the server closes it. Longer than
     * any balancer's idle reuse window (HAProxy purges idle server connections after 5 s, cloud
     * balancers keep them 60 s), so the server never closes a connection a proxy is about to reuse
     * (that request would be reset); Node's own 5 s is exactly HAProxy's window. Idle connections
     * cost a socket each; the drain closes them once the balancer took the node out.
     */
    keepAliveTimeoutMs: 65_000,
    /** Path of the health endpoint a load balancer polls: 200 while serving, 503 when storage is unreachable or the process is draining. */
    healthPath: '/healthz',
    /**
     * File a server on an embedded store writes in its data directory while it listens (0600, gone
     * after its shutdown): its pid, a URL of it reachable from this machine, and a random key with
     * which `mcp-auth status` asks its health endpoint for the store's figures. A file left by a
     * process that died is recognized by its pid and ignored.
     */
    serverFile: 'mcp-auth.server.json',
    /**
     * Request header carrying that key: `GET /healthz` with it adds the store's figures, the
     * version, the pid and the uptime to its answer; without it (a load balancer) the answer stays
     * `{"status":…}`, so nothing about the store reaches whoever can reach the port.
     */
    statusKeyHeader: 'x-mcp-auth-status-key',
    /** How long (ms) `mcp-auth status` waits for the running server's answer before it reads the files instead. A loopback request: 3 s is generous. */
    statusTimeoutMs: 3_000,
  },
} as const

export type Defaults = typeof defaults
