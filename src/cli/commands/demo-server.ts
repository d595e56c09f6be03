import { randomBytes } from 'node:crypto'
import { createMcpHttpApp, type McpHttpAppOptions } from '../../app/mcp-http-app.js'
import { createProtectedMcpApp } from '../../app/protected-mcp-app.js'
import { discoverAuthorizationServer } from '../../auth/resource/discover-authorization-server.js'
import { defaults } from '../../config/defaults.js'
import { createDemoServer } from '../../demo/demo-server.js'
import { StdioServerTransport } from '../../transports/stdio/index.js'
import type { RedisConnection } from '../../redis/connection.js'
import { parsePort, UsageError, type Command } from '../command.js'
import { drainDelayMs, drainOptions } from '../drain-option.js'
import type { Observer } from '../../observe/observer.js'
import { logOptions, logUsage, serverObserver } from '../log-options.js'
import { redisChoice, redisOptions } from '../redis-option.js'
import { serverUsageTail } from '../server-usage-tail.js'
import { closeOnSignal, createCliServer, freePort, listen, listenOrExplain, listeningUrl } from '../serve.js'

export const demoServerCommand: Command = {
  name: 'demo-server',
  summary: 'run the demo MCP server (stdio, or HTTP on every transport)',
  usage: `
Usage: mcp-auth demo-server --stdio
       mcp-auth demo-server [--host 127.0.0.1] [--port 0] [--stateless] [--json]
       mcp-auth demo-server --auth-server URL [--public-url URL] [--scope S]... [--port N]
       (each also [--log-level L] [--log-file FILE] [--log-format json|pretty] [--no-access-log])

Runs the demo MCP server (every MCP feature: tools with progress, cancellation, sampling,
elicitation and structured output; resources; prompts; completion; logging).

Over HTTP it serves every transport on one origin: Streamable HTTP at /mcp, the legacy
2024-11-05 HTTP+SSE pair at /sse (+ /messages), and stateless JSON at /rest. It prints
"listening on <url>" once it accepts connections.

Options:
  --stdio                speak MCP on stdin/stdout (logs go to stderr)
  --host HOST            interface to bind (default ${defaults.cli.host}; loopback unless you mean it)
  --port PORT            port to listen on (default ${defaults.cli.port}: an ephemeral port)
  --stateless            no sessions and no GET stream: every POST stands alone
  --json                 answer with application/json when the response is all there is (else SSE)
  --allowed-host NAME    accept this Host (repeatable; default: loopback names when bound to loopback)
  --allowed-origin URL   accept this Origin (repeatable; default: origins on an allowed host)
  --auth-server URL      require bearer tokens issued by this authorization server (its issuer);
                         its metadata gives the JWKS. Tokens must name this server's /mcp URL as
                         audience (with mcp-auth auth-server: --resource <public url>/mcp)
  --public-url URL       this server's public origin (default: the address it listens on)
  --scope SCOPE          scope every MCP request needs (repeatable; default: none beyond a valid token)
${logUsage(25)}
${serverUsageTail(25, 'Redis is unreachable')}
`,
  options: {
    stdio: { type: 'boolean' },
    host: { type: 'string' },
    port: { type: 'string' },
    stateless: { type: 'boolean' },
    json: { type: 'boolean' },
    'allowed-host': { type: 'string', multiple: true },
    'allowed-origin': { type: 'string', multiple: true },
    'auth-server': { type: 'string' },
    'public-url': { type: 'string' },
    scope: { type: 'string', multiple: true },
    ...redisOptions,
    ...drainOptions,
    ...logOptions,
  },
  async run(values) {
    // the log (stderr or --log-file, never stdout: with --stdio it carries MCP) and the access line of every request
    const observer = serverObserver(values, { trustProxy: false })
    const onerror = (error: Error): void => observer.log.error({ err: error }, 'MCP server error')
    if (values.stdio === true) return serveStdio(Object.assign(createDemoServer(), { onerror }))

    const host = (values.host as string | undefined) ?? defaults.cli.host
    const port = parsePort(values.port, defaults.cli.port)
    const allowedHosts = values['allowed-host'] as unknown as string[] | undefined
    const allowedOrigins = values['allowed-origin'] as unknown as string[] | undefined
    const choice = redisChoice(values, {})
    const drain = { delayMs: drainDelayMs(values) }
    if (choice !== undefined && values.stateless === true) throw new UsageError('--stateless keeps no sessions: --redis has nothing to share')
    const redis = choice === undefined ? undefined : await (await import('../../redis/connection.js')).RedisConnection.connect(choice)
    // processes on one Redis share the requestState key: an input round one asked, any answers
    const server = createDemoServer(redis === undefined ? {} : { requestStateKey: await sharedRequestStateKey(redis) })
    server.onerror = onerror
    const shared = redis === undefined ? undefined : (await import('../../redis/mcp-options.js')).redisMcpOptions(redis)
    // list changes and resource updates raised on one process reach the streams every process holds
    if (shared !== undefined) await server.shareNotifications(shared.bus)
    if (typeof values['auth-server'] === 'string') {
      return serveProtected(server, redis, drain, observer, {
        ...(shared ?? {}),
        host,
        port,
        issuer: values['auth-server'],
        publicUrl: values['public-url'] as string | undefined,
        scopes: (values.scope as unknown as string[] | undefined) ?? [],
        stateless: values.stateless === true,
        preferJsonResponse: values.json === true,
        ...(allowedHosts === undefined ? {} : { allowedHosts }),
        ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
      })
    }
    const http = createMcpHttpApp(server, {
      host,
      observer,
      ...(shared ?? {}),
      stateless: values.stateless === true,
      preferJsonResponse: values.json === true,
      ...(allowedHosts === undefined ? {} : { allowedHosts }),
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
    })
    const { server: listener } = await listen(observer.observeRequests(http.handler), host, port, { health: healthOf(redis), observe: observer.observeRequests.bind(observer) })
    await closeOnSignal([listener], () => closeAll(http, redis), drain)
    return 0
  },
}

/**
 * The MRTR requestState key of the processes sharing `redis`: the first to start draws it (SET NX),
 * the others read it. Whoever can read Redis could forge a requestState, but could take over its
 * sessions too: the key is no weaker than what it sits beside.
 */
async function sharedRequestStateKey(redis: RedisConnection): Promise<Uint8Array> {
  const name = redis.key('mcp', 'request-state-key')
  const drawn = randomBytes(32).toString('base64url')
  const stored = await redis.run(async (client) => {
    await client.set(name, drawn, 'NX')
    return client.get(name)
  })
  const key = Buffer.from(stored ?? '', 'base64url')
  if (key.byteLength !== 32) throw new Error(`${name} in Redis is not a 32-byte key: delete it and start again`)
  return key
}

/** Health for a load balancer: Redis answers, when there is one. */
const healthOf =
  (redis: RedisConnection | undefined): (() => Promise<boolean>) =>
  () =>
    redis === undefined ? Promise.resolve(true) : redis.ping()

async function closeAll(http: { close(): Promise<void> }, redis: RedisConnection | undefined): Promise<void> {
  await http.close()
  await redis?.close()
}

async function serveStdio(server: ReturnType<typeof createDemoServer>): Promise<number> {
  const session = await server.connect(new StdioServerTransport())
  await new Promise<void>((resolve) => {
    const previous = session.onclose
    session.onclose = () => {
      previous?.()
      resolve()
    }
  })
  return 0
}

async function serveProtected(
  server: ReturnType<typeof createDemoServer>,
  redis: RedisConnection | undefined,
  drain: { delayMs: number },
  observer: Observer,
  options: Partial<Pick<McpHttpAppOptions, 'sessionStore' | 'eventStore' | 'bus'>> & {
    host: string
    port: number
    issuer: string
    publicUrl: string | undefined
    scopes: string[]
    stateless: boolean
    preferJsonResponse: boolean
    allowedHosts?: string[]
    allowedOrigins?: string[]
  },
): Promise<number> {
  if (!URL.canParse(options.issuer)) throw new UsageError(`--auth-server must be an absolute URL, got ${options.issuer}`)
  if (options.publicUrl !== undefined && !URL.canParse(options.publicUrl)) throw new UsageError(`--public-url must be an absolute URL, got ${options.publicUrl}`)
  const metadata = await discoverAuthorizationServer(options.issuer)
  if (metadata.jwks_uri === undefined) throw new Error(`${options.issuer} publishes no jwks_uri: JWT access tokens cannot be verified`)
  const port = options.port === 0 ? await freePort(options.host) : options.port
  const listening = listeningUrl(options.host, port)
  const origin = new URL(options.publicUrl ?? listening).origin
  const { host: _host, port: _port, issuer: _issuer, publicUrl: _publicUrl, scopes: _scopes, ...rest } = options
  const http = createProtectedMcpApp(server, {
    ...rest,
    observer,
    host: options.host,
    origin,
    issuer: metadata.issuer,
    jwksUri: metadata.jwks_uri,
    requiredScopes: options.scopes,
    scopesSupported: options.scopes,
    // several processes on one Redis: a DPoP proof used on one is a replay on every other
    ...(redis !== undefined ? { dpop: { replayCache: new (await import('../../redis/dpop-replay-cache.js')).RedisDpopReplayCache(redis) } } : {}),
  })
  await http.warm().catch((error: Error) => observer.log.warn({ reason: error.message }, 'could not preload the signing keys'))
  const listener = createCliServer(observer.observeRequests(http.handler), { health: healthOf(redis), observe: observer.observeRequests.bind(observer) })
  await listenOrExplain(listener, port, options.host, () => closeAll(http, redis))
  process.stdout.write(`listening on ${listening}\nprotected resource ${http.resource} (tokens from ${metadata.issuer})\n`)
  await closeOnSignal([listener], () => closeAll(http, redis), drain)
  return 0
}
