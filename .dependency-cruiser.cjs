/**
 * The layering rules of src/ (CONTRIBUTING.md, "Layers"), checked by `npm run lint:layers`.
 *
 * Import direction: `config, jsonrpc → schema → protocol → {server, client} → transports → app → cli`;
 * `storage` and `auth/*` sit beside the MCP chain; only `app/` and `cli/` (and the package's entry
 * points src/index.ts, src/http.ts) join the two sides.
 *
 * No exceptions: the tree keeps every rule (issue 29 removed the 59 violations found when these
 * rules were written, and the list of known violations with them). Fix an import that breaks one.
 *
 * Type-only imports count (tsPreCompilationDeps): a type import still ties one room to another.
 */

/** A room of src/ as a path pattern: `room('server')` matches src/server/… */
const room = (...names) => `^src/(${names.join('|')})/`

module.exports = {
  forbidden: [
    // ---- The four rules of issue 29's acceptance ----
    {
      name: 'transports-not-to-server',
      comment:
        'The HTTP transports serve any session host (the MCP server, the gateway) through an ' +
        'interface they define and are handed; they never reach into McpServer or ServerSession.',
      severity: 'error',
      from: { path: room('transports') },
      to: { path: room('server') },
    },
    {
      name: 'transports-not-to-storage',
      comment:
        'Transports hold no storage backend: shared-session state (memory and Redis session/event ' +
        'stores, the cluster link) sits behind one interface in a folder of its own.',
      severity: 'error',
      from: { path: room('transports') },
      to: { path: room('storage') },
    },
    {
      name: 'server-not-to-storage',
      comment:
        'McpServer is an MCP room (imports protocol, schema, jsonrpc only); state it shares between ' +
        'nodes comes in through an interface it is handed, never from a storage backend.',
      severity: 'error',
      from: { path: room('server') },
      to: { path: room('storage') },
    },
    {
      name: 'auth-server-not-to-app',
      comment:
        'app/ is the composition root above everything; the authorization server must not point up ' +
        'into it (today auth/server/index.ts re-exports app/main-job.ts).',
      severity: 'error',
      from: { path: room('auth/server') },
      to: { path: room('app') },
    },

    // ---- The import direction of shared/STYLE.md ----
    {
      name: 'mcp-not-to-auth',
      comment:
        'The MCP side never imports auth/*: a handler sees auth as the opaque AuthInfo of ' +
        'protocol/context.ts, a client gets auth through an injected fetch. Only app/ and cli/ join them.',
      severity: 'error',
      from: { path: room('jsonrpc', 'schema', 'protocol', 'server', 'client', 'transports') },
      to: { path: '^src/auth/' },
    },
    {
      name: 'auth-and-storage-not-to-mcp',
      comment:
        'storage and auth/* sit beside the MCP chain and never import server, client, protocol or ' +
        'transports, so the authorization server and the token checks work without the MCP stack.',
      severity: 'error',
      from: { path: room('storage', 'auth') },
      to: { path: room('server', 'client', 'protocol', 'transports') },
    },
    {
      name: 'auth-resource-not-to-oidc-provider',
      comment:
        'The resource side must work with any authorization server, so it never imports ' +
        'oidc-provider (nor our own authorization server).',
      severity: 'error',
      from: { path: room('auth/resource') },
      to: { path: ['(^|/)node_modules/oidc-provider/', room('auth/server')] },
    },
    {
      name: 'storage-is-a-base',
      comment:
        'The storage backends import only config and each other: every room above may use them ' +
        'through the storage seam without pulling in a surface. Its public list (index.ts) also ' +
        'names the Redis backend, which lives in redis/.',
      severity: 'error',
      from: { path: room('storage'), pathNot: '^src/storage/index\\.ts$' },
      // sessions/ sits below storage: storage re-exports its message bus and outage error (issue 29)
      to: { path: '^src/', pathNot: room('storage', 'config', 'sessions') },
    },
    {
      name: 'mcp-not-to-redis',
      comment:
        'All Redis code sits in redis/, an adapter room: the MCP chain (transports and server included) ' +
        'gets shared state through the interfaces it defines, and only the composition (app/, cli/) ' +
        'hands it a Redis implementation.',
      severity: 'error',
      from: { path: room('jsonrpc', 'schema', 'protocol', 'server', 'client', 'transports', 'sessions', 'session-host', 'gateway') },
      to: { path: room('redis') },
    },
    {
      name: 'redis-is-an-adapter',
      comment:
        'redis/ implements interfaces other rooms define (storage, shared sessions, the rate limiter, ' +
        'the DPoP replay cache, the MCP rate limit\'s token buckets) and imports only those interfaces, config and the JSON-RPC types: ' +
        'never a surface, so a Redis module never loads the authorization server or the MCP server.',
      severity: 'error',
      from: { path: room('redis') },
      to: {
        path: '^src/',
        pathNot: [
          room('redis', 'storage', 'sessions', 'config', 'jsonrpc', 'observe'),
          '^src/auth/server/middleware/rate-limiter\\.ts$',
          '^src/auth/resource/dpop-replay-cache\\.ts$',
          '^src/auth/resource/token-bucket\\.ts$',
        ],
      },
    },
    {
      name: 'sessions-is-a-base',
      comment:
        'sessions/ holds the state HTTP sessions share between nodes (the message bus, the session and ' +
        'event store contracts with their in-memory implementations, the cluster link between nodes, the ' +
        'outage error the transports answer with 503): the transports, the server, storage and redis/ all import it, so it imports ' +
        'only the rooms below them. Its Redis implementations live in redis/.',
      severity: 'error',
      from: { path: room('sessions') },
      to: { path: '^src/', pathNot: room('sessions', 'config', 'jsonrpc', 'schema', 'collections') },
    },
    {
      name: 'session-host-is-a-seam',
      comment:
        'session-host/ is the contract between the HTTP transports and what serves their sessions (the ' +
        'MCP server, the gateway): types and tiny helpers both sides import, since server/ may ' +
        'not import transports/ nor transports/ server/. It imports only the rooms below both.',
      severity: 'error',
      from: { path: room('session-host') },
      to: { path: '^src/', pathNot: room('session-host', 'sessions', 'protocol', 'schema', 'jsonrpc', 'config') },
    },
    {
      name: 'gateway-is-a-session-host',
      comment:
        'gateway/ serves the HTTP transports\' sessions from child processes: it implements the ' +
        'session-host contract over a Transport to each child (stdio, an upstream HTTP session), so it ' +
        'imports the MCP rooms below the server and the client transports, never server/ or client/ ' +
        '(it relays messages, it runs no handlers), nor auth/* (what it needs of the token is the ' +
        'AuthInfo leaf) nor storage (per-account values come through an interface it defines).',
      severity: 'error',
      from: { path: room('gateway') },
      to: {
        path: '^src/',
        pathNot: [room('gateway', 'session-host', 'sessions', 'protocol', 'schema', 'jsonrpc', 'config', 'net', 'auth-info', 'collections', 'observe'), '^src/transports/(stdio|streamable-http/client|sse-legacy/client|http-client|http)/'],
      },
    },
    {
      name: 'observe-is-a-base',
      comment:
        'observe/ is what every part reports through (the log, the audit event and trail contract, the ' +
        'request record, the observer that hands them round): the transports, the server, auth/*, storage, ' +
        'redis/ and the gateway all import it, so it imports only config and collections. Its file and ' +
        'Redis trails, its metrics and spans are its own files or live in redis/.',
      severity: 'error',
      from: { path: room('observe') },
      to: { path: '^src/', pathNot: room('observe', 'config', 'collections') },
    },
    {
      name: 'config-is-a-leaf',
      comment:
        'src/config holds the defaults every room reads; it imports no other room, so reading a ' +
        'default never loads a surface (and never makes a circle).',
      severity: 'error',
      from: { path: room('config') },
      to: { path: '^src/', pathNot: room('config') },
    },
    {
      name: 'auth-info-is-a-leaf',
      comment:
        'AuthInfo (what a handler sees of the caller\'s token) is built by auth/resource and carried by ' +
        'the MCP chain (protocol/context.ts re-exports it); neither side may import the other, so the ' +
        'type sits in a room of its own that imports nothing and that both may import.',
      severity: 'error',
      from: { path: room('auth-info') },
      to: { path: '^src/', pathNot: room('auth-info') },
    },
    {
      name: 'jsonrpc-is-a-leaf',
      comment: 'The JSON-RPC envelope is the bottom of the MCP chain: it imports no other room (zod only).',
      severity: 'error',
      from: { path: room('jsonrpc') },
      to: { path: '^src/', pathNot: room('jsonrpc') },
    },
    {
      name: 'schema-only-down',
      comment: 'MCP method shapes sit on the JSON-RPC envelope and on nothing above it.',
      severity: 'error',
      from: { path: room('schema') },
      to: { path: '^src/', pathNot: room('schema', 'jsonrpc') },
    },
    {
      name: 'protocol-only-down',
      comment:
        'The session engine is shared by the server and the client; it imports only the rooms below ' +
        'it (and config, and the auth-info leaf), never a side or a transport.',
      severity: 'error',
      from: { path: room('protocol') },
      to: { path: '^src/', pathNot: room('protocol', 'schema', 'jsonrpc', 'config', 'auth-info') },
    },
    {
      name: 'server-and-client-not-up',
      comment:
        'McpServer and McpClient are transport-neutral: they never import transports, app, cli or ' +
        'the demo, and never each other.',
      severity: 'error',
      from: { path: room('server', 'client') },
      to: { path: room('transports', 'app', 'cli', 'demo') },
    },
    {
      name: 'server-not-to-client',
      comment: 'The two sides of the MCP chain are siblings; neither imports the other.',
      severity: 'error',
      from: { path: room('server') },
      to: { path: room('client') },
    },
    {
      name: 'client-not-to-server',
      comment: 'The two sides of the MCP chain are siblings; neither imports the other.',
      severity: 'error',
      from: { path: room('client') },
      to: { path: room('server') },
    },
    {
      name: 'only-entry-points-to-app',
      comment:
        'app/ is the composition root: only cli/ and the package entry points (src/index.ts, ' +
        'src/http.ts) import it. auth/server → app has its own rule above (issue 29 names it).',
      severity: 'error',
      // src/auth-server.ts, the `mcp-auth/auth-server` entry, lists the main job beside the
      // authorization server, so that auth/server/ itself never points up into app/ (issue 29)
      from: { path: '^src/', pathNot: ['^src/(app|cli|auth/server)/', '^src/(index|http|auth-server)\\.ts$'] },
      to: { path: room('app') },
    },
    {
      name: 'nothing-to-cli',
      comment: 'cli/ is the top: thin commands over the rest. Nothing imports it, so a library user never loads it.',
      severity: 'error',
      from: { path: '^src/', pathNot: room('cli') },
      to: { path: room('cli') },
    },
    {
      name: 'no-circular',
      comment:
        'No import circles, type-only ones included: a circle means two modules are one job, or a ' +
        'type sits in the wrong room (issue 29 names four).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.d.ts', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
}
