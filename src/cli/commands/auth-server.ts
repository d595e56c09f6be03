import type { AuthorizationServerOptions } from '../../auth/server/options.js'
import { defaults } from '../../config/defaults.js'
import { loadConfigFile } from '../../config/load-config-file.js'
import { parsePort, UsageError, type Command } from '../command.js'
import { drainDelayMs, drainOptions } from '../drain-option.js'
import { logOptions, logUsage, serverObserver } from '../log-options.js'
import { redisChoice, redisOptions } from '../redis-option.js'
import { serverUsageTail } from '../server-usage-tail.js'
import { removeRedisStoreMarker, writeRedisStoreMarker } from '../redis-store-marker.js'
import { closeOnSignal, createCliServer, freePort, listenOrExplain, listeningUrl } from '../serve.js'
import { printFirstAdministratorNotice } from '../first-administrator-notice.js'
import { nodeSupportNotice } from '../node-support-notice.js'
import { reachableHost, storeStatusEndpoint } from '../store-status-endpoint.js'
import { metricsChoice, metricsOptions, metricsUsage } from '../metrics-options.js'
import { observeJob } from '../../app/observe-job.js'

export const authServerCommand: Command = {
  name: 'auth-server',
  summary: 'run the standalone OAuth 2.1 authorization server for MCP',
  usage: `
Usage: mcp-auth auth-server [--config FILE] [--issuer URL] [--host 127.0.0.1] [--port N] [--data-dir DIR] [--redis URL]
                            [--metrics] [--metrics-port PORT [--metrics-host HOST]]
                            [--log-level L] [--log-file FILE] [--log-format json|pretty] [--no-access-log]

Runs the authorization server: RFC 8414 / OIDC metadata, dynamic client registration, client ID
metadata documents, authorization code + PKCE with login and consent pages, client credentials,
refresh rotation, revocation, introspection, JWT access tokens bound to your MCP resources.
Storage, signing keys and secrets live in the data directory (created 0700, files 0600).
Prints "listening on <url>" once it accepts connections.

Options:
  --config FILE      JSON configuration (see config/auth-server.example.json)
  --issuer URL       issuer identifier (default: http://<host>:<port>; https unless loopback)
  --host HOST        interface to bind (default ${defaults.cli.host})
  --port PORT        port (default: the issuer's port, else ${defaults.cli.port}: ephemeral)
  --data-dir DIR     data directory (default ${defaults.storage.dataDir})
  --resource URL     protected MCP resource (repeatable, after the configuration file's;
                     default <issuer origin>${defaults.streamableHttp.path}; 'mcp-auth resources add' stores more)
  --trust-proxy      trust X-Forwarded-* from a TLS-terminating proxy
${metricsUsage(21)}
${logUsage(21)}
${serverUsageTail(21, 'storage is unreachable')}
`,
  options: {
    config: { type: 'string' },
    issuer: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    resource: { type: 'string', multiple: true },
    'trust-proxy': { type: 'boolean' },
    ...redisOptions,
    ...metricsOptions,
    ...drainOptions,
    ...logOptions,
  },
  async run(values) {
    const notice = nodeSupportNotice()
    if (notice !== undefined) process.stderr.write(`mcp-auth auth-server: ${notice}\n`)
    const fromFile = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
    const redis = redisChoice(values, fromFile)
    const drain = { delayMs: drainDelayMs(values) }
    const options = { ...fromFile } as AuthorizationServerOptions
    if (redis !== undefined) options.redis = redis
    const issuer = (values.issuer as string | undefined) ?? options.issuer
    if (issuer !== undefined && !URL.canParse(issuer)) throw new UsageError(`--issuer must be an absolute URL, got ${issuer}`)
    const host = (values.host as string | undefined) ?? defaults.cli.host
    const issuerPort = issuer === undefined ? undefined : Number(new URL(issuer).port || (new URL(issuer).protocol === 'https:' ? 443 : 80))
    const port = parsePort(values.port, issuerPort ?? defaults.cli.port)
    if (typeof values['data-dir'] === 'string') options.dataDir = values['data-dir']
    const resources = values.resource as unknown as string[] | undefined
    // after the configuration file's (the first resource is the default)
    if (resources !== undefined) options.resources = [...(options.resources ?? []), ...resources.map((uri) => ({ uri }))]
    if (values['trust-proxy'] === true) options.trustProxy = true
    // the log (stderr or --log-file, never stdout) and the access line of every request
    const observer = serverObserver(values, { trustProxy: options.trustProxy === true })

    // Built before the port opens (see start): nothing is answered 503, and a fatal error exits.
    const actualPort = port === 0 ? await freePort(host) : port
    const url = listeningUrl(host, actualPort)
    const metrics = metricsChoice(values, observer, 'auth-server')
    const as = await (await import('../../auth/server/create-authorization-server.js')).createAuthorizationServer({ ...options, issuer: issuer ?? url, observer })
    observeJob(observer, { mcps: [], ...(redis !== undefined ? { redis: () => as.health() } : {}) })
    // an administration command pointed at this directory without --redis then says where the store is
    if (redis !== undefined) await writeRedisStoreMarker(options.dataDir ?? defaults.storage.dataDir, redis)
    else await removeRedisStoreMarker(options.dataDir ?? defaults.storage.dataDir)
    // `mcp-auth status` asks this process for the store's figures (embedded store only: Redis is shared)
    const endpoint = redis === undefined ? storeStatusEndpoint(options.dataDir ?? defaults.storage.dataDir, as.storage) : undefined
    const metricsListener = await metrics.listen()
    const server = createCliServer(observer.observeRequests(as.app.callback()), {
      health: () => as.health(),
      ...(endpoint !== undefined ? { status: endpoint.status } : {}),
      observe: observer.observeRequests.bind(observer),
    })
    await listenOrExplain(server, actualPort, host, () => as.close())
    // signals are handled from the moment it listens: a SIGTERM while the lines below are written drains too
    const closing = closeOnSignal(
      [server],
      async () => {
        await endpoint?.withdraw()
        await as.close()
      },
      drain,
    )
    await endpoint?.publish(listeningUrl(reachableHost(host), actualPort))
    process.stdout.write(`listening on ${url}\nissuer ${as.issuer}\n`)
    // after the line scripts wait for: how to make the first administrator, while there is none
    const dataDir = options.dataDir ?? defaults.storage.dataDir
    await printFirstAdministratorNotice(as, 'auth-server', redis === undefined ? `--data-dir ${dataDir}` : `--redis URL --data-dir ${dataDir}`)
    await closing
    await metricsListener?.close()
  },
}
