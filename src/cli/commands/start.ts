import type { AuthorizationServerOptions } from '../../auth/server/options.js'
import { defaults } from '../../config/defaults.js'
import { loadConfigFile } from '../../config/load-config-file.js'
import { parsePort, UsageError, type Command } from '../command.js'
import { drainDelayMs, drainOptions, drainUsage } from '../drain-option.js'
import { logOptions, logUsage, serverObserver } from '../log-options.js'
import { redisChoice, redisOptions, redisUsage } from '../redis-option.js'
import { redactedRedisUrl, removeRedisStoreMarker, writeRedisStoreMarker } from '../redis-store-marker.js'
import { freePort } from '../serve.js'
import { serveJob } from '../serve-job.js'
import { printFirstAdministratorNotice } from '../first-administrator-notice.js'
import { nodeSupportNotice } from '../node-support-notice.js'
import { storeStatusEndpoint } from '../store-status-endpoint.js'
import { metricsChoice, metricsOptions, metricsUsage } from '../metrics-options.js'

const m = defaults.mainJob

export const startCommand: Command = {
  name: 'start',
  summary: 'run the main job: the authorization server and the protected demo MCP server on one origin',
  usage: `
Usage: mcp-auth start [--port ${m.port}] [--data-dir ${defaults.storage.dataDir}] [--config FILE] [--resource URL]...
                     [--redis URL] [--issuer URL] [--host H] [--trust-proxy] [--require-dpop] [--dpop-nonces] [--demo]
                     [--metrics] [--metrics-port PORT [--metrics-host HOST]]
                     [--log-level L] [--log-file FILE] [--log-format json|pretty] [--no-access-log]

Serves, on http://${m.publicHost}:<port> (listening on loopback only):
  - the OAuth 2.1 authorization server (metadata, registration, login and consent pages, tokens),
  - the demo MCP server on every transport (/mcp, /sse, /rest), bearer tokens required,
  - protected resource metadata at /.well-known/oauth-protected-resource/mcp.
Storage, keys and secrets live in the data directory. On first start a '${m.demoUsername}' account is
created with the password from MCP_AUTH_DEMO_PASSWORD, or a generated one printed once; a later
start with MCP_AUTH_DEMO_PASSWORD sets the account's password to it. With
--redis (several nodes: production) there is no demo account unless --demo asks for one.

Options:
  --port PORT      port (default: the PORT variable, else ${m.port}; 0 for an ephemeral one)
  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  --config FILE    JSON configuration of the authorization server (see config/auth-server.example.json);
                   its issuer is set by this command, its resources come after the demo's
  --resource URL   another MCP server to issue tokens for (repeatable; default scopes ${defaults.authServer.resourceScopes.join(' ')}),
                   e.g. http://localhost:4160/mcp; 'mcp-auth resources add' stores one with its scopes
${redisUsage(19)}
${drainUsage(19)}
  --issuer URL     the public origin when several nodes serve one behind a proxy (default
                   http://${m.publicHost}:<port>); the MCP endpoint is <issuer>/mcp
  --host H         interface to listen on (default: loopback, 127.0.0.1 and ::1); behind a proxy on
                   another machine, a private address
  --trust-proxy    trust X-Forwarded-* from a TLS-terminating proxy (only when it overwrites them)
  --require-dpop   the MCP server accepts DPoP-bound tokens only (RFC 9449); by default it accepts
                   them beside Bearer tokens, for clients that use DPoP
  --dpop-nonces    DPoP proofs at the MCP server must carry its nonce (DPoP-Nonce, shared by every node)
${metricsUsage(19)}
  --demo           with --redis: create the '${m.demoUsername}' account (scopes ${m.requiredScopes.join(' ')}) if the
                   deployment has none; the node that creates it prints its password
${logUsage(19)}
  -h, --help       show this help
Health: GET /healthz (200, or 503 when storage is unreachable or the process is draining).
Several processes on one Redis behind a load balancer: docs/deployment.md.
`,
  options: {
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    config: { type: 'string' },
    resource: { type: 'string', multiple: true },
    ...redisOptions,
    ...metricsOptions,
    ...drainOptions,
    issuer: { type: 'string' },
    host: { type: 'string' },
    'trust-proxy': { type: 'boolean' },
    'require-dpop': { type: 'boolean' },
    'dpop-nonces': { type: 'boolean' },
    demo: { type: 'boolean' },
    ...logOptions,
  },
  async run(values) {
    const notice = nodeSupportNotice()
    if (notice !== undefined) process.stderr.write(`mcp-auth start: ${notice}\n`)
    // PORT as npm users expect it (npm start with PORT=4001), --port first
    const port = parsePort(values.port ?? process.env['PORT'], m.port)
    const dataDir = (values['data-dir'] as string | undefined) ?? defaults.storage.dataDir
    const file = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
    const redis = redisChoice(values, file)
    const drain = { delayMs: drainDelayMs(values) }
    const fromFile = file as AuthorizationServerOptions
    const issuer = values.issuer as string | undefined
    if (issuer !== undefined && (!URL.canParse(issuer) || new URL(issuer).pathname !== '/')) throw new UsageError(`--issuer must be an origin (https://host[:port]), got ${issuer}`)
    const host = values.host as string | undefined
    // the log (stderr or --log-file, never stdout) and the access line of every request
    const observer = serverObserver(values, { trustProxy: values['trust-proxy'] === true })

    // Everything is built before the port opens: no request is ever answered 503 while starting,
    // and a fatal start-up error (a corrupt store, a bad configuration) leaves nothing listening,
    // so the process exits with the message and a non-zero code.
    const actualPort = port === 0 ? await freePort(host ?? '127.0.0.1') : port
    const origin = issuer === undefined ? `http://${m.publicHost}:${actualPort}` : new URL(issuer).origin

    const metrics = metricsChoice(values, observer, 'start')
    const { createMainJob } = await import('../../app/main-job.js')
    const job = await createMainJob({
      origin,
      dataDir,
      config: fromFile,
      resources: (values.resource as unknown as string[] | undefined) ?? [],
      ...(redis !== undefined ? { redis } : {}),
      ...(values['trust-proxy'] === true ? { trustProxy: true } : {}),
      dpop: { required: values['require-dpop'] === true, nonces: values['dpop-nonces'] === true },
      ...(process.env['MCP_AUTH_DEMO_PASSWORD'] ? { demoPassword: process.env['MCP_AUTH_DEMO_PASSWORD'] } : {}),
      ...(values.demo === true ? { demo: true } : {}),
      observer,
    })
    const { as, mcp } = job
    // an administration command pointed at this directory without --redis then says where the store is
    if (redis !== undefined) await writeRedisStoreMarker(dataDir, redis)
    else await removeRedisStoreMarker(dataDir)

    // how an administration command reaches this deployment's store (the Redis password left out)
    const store =
      redis === undefined
        ? `--data-dir ${dataDir}`
        : `--redis ${redactedRedisUrl(redis.url)}${redis.prefix === undefined ? '' : ` --redis-prefix ${redis.prefix}`} --data-dir ${dataDir}`
    // `mcp-auth status` asks this process for the store's figures (embedded store only: Redis is shared)
    const endpoint = redis === undefined ? storeStatusEndpoint(dataDir, as.storage) : undefined
    const metricsListener = await metrics.listen()
    const { closed } = await serveJob(
      { handler: job.handler, health: () => job.health(), close: () => job.close() },
      {
        command: 'start',
        port: actualPort,
        host,
        how: 'choose another with --port N (npm start -- --port N) or PORT=N',
        endpoint,
        drain,
        warm: () => mcp.warm(),
        origin,
        behindProxy: issuer !== undefined,
        observer,
      },
    )
    // after the line scripts wait for: how to make the first administrator, while there is none
    await printFirstAdministratorNotice(as, 'start', store)
    process.stdout.write(
      [
        '',
        `  MCP endpoint        ${origin}/mcp   (also /sse and /rest; bearer tokens required)`,
        `  Authorization       ${as.issuer}   (metadata at /.well-known/oauth-authorization-server)`,
        `  Resource metadata   ${origin}/.well-known/oauth-protected-resource/mcp`,
        demoLine(job, store, redis !== undefined),
        '',
        'Next:',
        `  - MCP Inspector: npx @modelcontextprotocol/inspector, Transport "Streamable HTTP", URL ${origin}/mcp;`,
        '    it registers itself, opens the login page, and connects with the token.',
        ...(redis === undefined
          ? [
              `  - Protect another MCP server with this authorization server: start with --resource <its /mcp URL>,`,
              `    or, as an administrator while it runs, mcp-auth resources add <its /mcp URL> --scopes "..." --server ${origin}`,
              `  - Add accounts while it runs (as an administrator): mcp-auth users add <name> [--scopes "mcp mcp:admin"] --server ${origin}`,
              `    (the console: ${origin}/admin; with the server stopped: --data-dir ${dataDir})`,
              `    (a new account may have ${m.requiredScopes.join(' ')}; ${m.demoUsername} may have ${m.demoScopes.join(' ')})`,
            ]
          : [
              '  - Administer the deployment while the nodes run (every node sees the change at once):',
              `    mcp-auth users add <name> [--scopes "mcp mcp:admin"] ${store}`,
              `    mcp-auth resources add <its /mcp URL> --scopes "..." ${store}`,
              `    (also users list|disable|delete, grants list|revoke, clients list|remove; a new account may have ${m.requiredScopes.join(' ')})`,
            ]),
        '',
      ].join('\n'),
    )
    await closed
    await metricsListener?.close()
  },
}

/** The banner's line about the demo account: its password when this start created it, else how to reach it. */
function demoLine(job: { demoPassword?: string; demo: 'created' | 'existing' | 'none'; demoPasswordChange?: 'applied' | 'not-applied' }, store: string, shared: boolean): string {
  const label = '  Demo account        '
  if (job.demoPassword !== undefined) return `${label}${m.demoUsername} / password: ${job.demoPassword}  (shown once; set MCP_AUTH_DEMO_PASSWORD to choose it)`
  if (job.demoPasswordChange === 'applied') return `${label}${m.demoUsername} (password set from MCP_AUTH_DEMO_PASSWORD)`
  if (job.demoPasswordChange === 'not-applied') {
    return `${label}${m.demoUsername} exists in the deployment's store; MCP_AUTH_DEMO_PASSWORD is not applied to it (the nodes share the account: one node's environment does not reset it; reset: mcp-auth users add ${m.demoUsername} ${store})`
  }
  if (!shared) return `${label}${m.demoUsername} (password set on first start; to reset it, stop the server and run mcp-auth users add ${m.demoUsername} ${store})`
  if (job.demo === 'none') return `${label}none (several nodes: add accounts with mcp-auth users add <name> ${store}, or start with --demo)`
  return `${label}${m.demoUsername} exists in the deployment's store (password set when it was created; reset: mcp-auth users add ${m.demoUsername} ${store}; remove: mcp-auth users delete ${m.demoUsername} ${store})`
}
