import type { GatewayUpstream } from '../../app/gateway-job.js'
import type { AuthorizationServerOptions } from '../../auth/server/options.js'
import { defaults } from '../../config/defaults.js'
import { loadConfigFile } from '../../config/load-config-file.js'
import { parsePort, UsageError, type Command } from '../command.js'
import { drainDelayMs, drainOptions, drainUsage } from '../drain-option.js'
import { redisChoice, redisOptions, redisUsage } from '../redis-option.js'
import { removeRedisStoreMarker, writeRedisStoreMarker } from '../redis-store-marker.js'
import { parseScopes } from '../scope-list.js'
import { freePort } from '../serve.js'
import { logOptions, logUsage, serverObserver } from '../log-options.js'
import { serveJob } from '../serve-job.js'
import { printFirstAdministratorNotice } from '../first-administrator-notice.js'
import { storeStatusEndpoint } from '../store-status-endpoint.js'
import { metricsChoice, metricsOptions, metricsUsage } from '../metrics-options.js'

const m = defaults.mainJob
const g = defaults.gateway

export const gatewayCommand: Command = {
  name: 'gateway',
  summary: 'put a stdio MCP server behind our login: one child process per session or principal, tokens checked on every request',
  usage: `
Usage: mcp-auth gateway [options] -- <command> [args...]
       mcp-auth gateway [options] --upstream URL
       mcp-auth gateway [options] --servers FILE

Serves the stdio MCP server <command> on http://${m.publicHost}:<port>/mcp (Streamable HTTP, every
protocol revision, 2026-07-28 included, whatever revision the server speaks), /sse and /rest,
behind Bearer/DPoP tokens, with protected resource metadata; and the authorization server on the
same origin (login and consent pages, registration, tokens; no demo account: add accounts with
mcp-auth users add), unless --auth-server names another one.

Processes: two principals (subject + client of the token) never share a process. A stateful
session gets its own child, started at initialize and ended with the session; stateless clients
(2026-07-28 requests, stateless POSTs, /rest) share one long-lived child per principal. Each child
learns whom it serves from MCP_AUTH_SUBJECT, MCP_AUTH_CLIENT_ID and MCP_AUTH_SCOPE, plus the values
set for its subject with mcp-auth user-env. --shared runs one child for everyone instead.

Several servers: --servers FILE (JSON, see config/gateway-servers.example.json) serves each of its
servers at /<name>/mcp (and /<name>/sse, /<name>/rest), a resource of its own with its own scopes,
all on one authorization server: a client signs in once for all of them. Each server's command,
args, env, cwd, scopes, toolScopes, shared and name are in the file (not --name, --scopes,
--tool-scope, --shared, --env or --cwd).

Options:
  --port PORT          port (default: the PORT variable, else ${m.port}; 0 for an ephemeral one)
  --data-dir DIR       data directory (default ${defaults.storage.dataDir})
  --config FILE        JSON configuration of the authorization server (see config/auth-server.example.json)
  --auth-server URL    trust this authorization server (any RFC 8414 one) instead of running ours
  --name NAME          the server's name on the consent page and in its metadata
  --scopes "S ..."     scopes every request needs (default: ${defaults.authServer.resourceScopes.join(' ')})
  --tool-scope T=S     tool T needs scope S too (repeatable; a call without it gets 403 insufficient_scope)
  --servers FILE       several stdio servers, each at /<name>/mcp (instead of -- <command>)
  --shared             one child for everyone, for servers that keep no per-user state (the child's
                       sampling, elicitation and roots requests and its log messages are refused or dropped)
  --env NAME           pass our environment variable NAME to every child (repeatable; by default a
                       child gets only ${defaults.stdio.inheritedEnv.join(', ')})
  --cwd DIR            the children's working directory
  --upstream URL       front this HTTP MCP server (no auth of its own) instead of a stdio program: it
                       never sees the caller's token; each request carries a short-lived JWT about the
                       caller (aud: URL, sub, client_id, scope), signed with our keys (verify at /jwks)
  --upstream-header NAME
                       the header of that JWT (default ${g.upstreamHeader})
  --upstream-transport streamable-http|sse|auto
                       how to speak to the upstream (default auto: Streamable HTTP, else HTTP+SSE)
  --max-children N     most children at once (default ${g.maxChildren}); over it: 503 + Retry-After
  --max-children-per-client N
                       most children of one principal (default ${g.maxChildrenPerPrincipal}); over it: 429 + Retry-After
  --idle-timeout S     a stateless principal's child ends after S seconds without a request (default ${g.childIdleMs / 1000})
  --initialize-timeout S
                       a child that does not answer initialize within S seconds is stopped (default ${g.initializeTimeoutMs / 1000})
${redisUsage(23)}
${drainUsage(23)}
  --issuer URL         the public origin when several nodes serve one behind a proxy
  --host H             interface to listen on (default: loopback, 127.0.0.1 and ::1)
  --trust-proxy        trust X-Forwarded-* from a TLS-terminating proxy (only when it overwrites them)
  --require-dpop       accept DPoP-bound tokens only (RFC 9449)
  --dpop-nonces        DPoP proofs must carry the server's nonce
${metricsUsage(23)}
                       (with --auth-server only the separate listener serves them)
${logUsage(23)}
  -h, --help           show this help
Example: mcp-auth gateway --port 4000 -- npx -y @modelcontextprotocol/server-everything
More: docs/gateway.md.
`,
  options: {
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    config: { type: 'string' },
    'auth-server': { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'string' },
    'tool-scope': { type: 'string', multiple: true },
    servers: { type: 'string' },
    shared: { type: 'boolean' },
    env: { type: 'string', multiple: true },
    cwd: { type: 'string' },
    upstream: { type: 'string' },
    'upstream-header': { type: 'string' },
    'upstream-transport': { type: 'string' },
    'max-children': { type: 'string' },
    'max-children-per-client': { type: 'string' },
    'idle-timeout': { type: 'string' },
    'initialize-timeout': { type: 'string' },
    ...metricsOptions,
    ...redisOptions,
    ...drainOptions,
    issuer: { type: 'string' },
    host: { type: 'string' },
    'trust-proxy': { type: 'boolean' },
    'require-dpop': { type: 'boolean' },
    'dpop-nonces': { type: 'boolean' },
    ...logOptions,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const [command, ...args] = positionals
    const serversFile = values.servers as string | undefined
    if (serversFile !== undefined) {
      if (command !== undefined || values.upstream !== undefined) throw new UsageError('give one of --servers FILE, --upstream URL or -- <command>')
      const single = ['name', 'scopes', 'tool-scope', 'shared', 'env', 'cwd'].find((option) => values[option] !== undefined)
      if (single !== undefined) throw new UsageError(`--${single} is set per server in the --servers file`)
    }
    const upstream = upstreamChoice(values, command !== undefined)
    const fileServers = serversFile === undefined ? undefined : await (await import('../gateway-servers-file.js')).readGatewayServersFile(serversFile)
    if (command === undefined && upstream === undefined && fileServers === undefined) {
      throw new UsageError(
        'name the MCP server to run after --, e.g. mcp-auth gateway -- npx -y @modelcontextprotocol/server-everything (or front an HTTP one with --upstream URL, or several with --servers FILE)',
      )
    }
    const port = parsePort(values.port ?? process.env['PORT'], m.port)
    const dataDir = (values['data-dir'] as string | undefined) ?? defaults.storage.dataDir
    const file = typeof values.config === 'string' ? await loadConfigFile(values.config) : {}
    const redis = redisChoice(values, file)
    const issuer = values.issuer as string | undefined
    if (issuer !== undefined && (!URL.canParse(issuer) || new URL(issuer).pathname !== '/')) throw new UsageError(`--issuer must be an origin (https://host[:port]), got ${issuer}`)
    const authServer = values['auth-server'] as string | undefined
    if (authServer !== undefined && !URL.canParse(authServer)) throw new UsageError(`--auth-server must be a URL (the issuer), got ${authServer}`)
    if (authServer !== undefined && upstream !== undefined) {
      throw new UsageError(
        '--upstream needs our authorization server: the upstream verifies the principal JWT at its JWKS, and with --auth-server there are no keys of ours to sign it',
      )
    }
    const host = values.host as string | undefined
    const requiredScopes = typeof values.scopes === 'string' ? parseScopes(values.scopes) : defaults.authServer.resourceScopes
    const toolScopes = parseToolScopes((values['tool-scope'] as unknown as string[] | undefined) ?? [])
    const scopes = [...new Set([...requiredScopes, ...Object.values(toolScopes).flat()])]
    const env: Record<string, string> = {}
    for (const name of (values.env as unknown as string[] | undefined) ?? []) {
      const value = process.env[name]
      if (value === undefined) throw new UsageError(`--env ${name}: no such variable in this environment`)
      env[name] = value
    }

    // the log (stderr or --log-file, never stdout: a child's MCP is not ours to mix with) and the access line of every request
    const observer = serverObserver(values, { trustProxy: values['trust-proxy'] === true })
    const actualPort = port === 0 ? await freePort(host ?? '127.0.0.1') : port
    const origin = issuer === undefined ? `http://${m.publicHost}:${actualPort}` : new URL(issuer).origin
    if (values.metrics === true && values['metrics-port'] === undefined && authServer !== undefined)
      throw new UsageError('--metrics serves them on our authorization server, and --auth-server runs none here: give --metrics-port PORT instead')
    const metrics = metricsChoice(values, observer, 'gateway')
    const { createGatewayJob } = await import('../../app/gateway-job.js')
    const job = await createGatewayJob({
      origin,
      dataDir,
      config: file as AuthorizationServerOptions,
      ...(fileServers !== undefined
        ? { servers: fileServers }
        : {
            ...(upstream !== undefined ? { upstream } : { child: { command: command!, args, env, ...(typeof values.cwd === 'string' ? { cwd: values.cwd } : {}) } }),
            resource: {
              ...(typeof values.name === 'string' ? { name: values.name } : {}),
              scopes,
              requiredScopes,
              ...(Object.keys(toolScopes).length > 0 ? { toolScopes } : {}),
            },
          }),
      ...(authServer !== undefined ? { authServer } : {}),
      ...(values.shared === true ? { shared: true } : {}),
      children: {
        ...positive(values, 'max-children', 'maxChildren', 1),
        ...positive(values, 'max-children-per-client', 'maxChildrenPerPrincipal', 1),
        ...positive(values, 'idle-timeout', 'childIdleMs', 1000),
        ...positive(values, 'initialize-timeout', 'initializeTimeoutMs', 1000),
      },
      ...(redis !== undefined ? { redis } : {}),
      ...(values['trust-proxy'] === true ? { trustProxy: true } : {}),
      dpop: { required: values['require-dpop'] === true, nonces: values['dpop-nonces'] === true },
      observer,
    })
    if (job.as !== undefined) {
      if (redis !== undefined) await writeRedisStoreMarker(dataDir, redis)
      else await removeRedisStoreMarker(dataDir)
    }
    const endpoint = redis === undefined && job.as !== undefined ? storeStatusEndpoint(dataDir, job.as.storage) : undefined
    const metricsListener = await metrics.listen()
    const { closed } = await serveJob(job, {
      command: 'gateway',
      port: actualPort,
      host,
      how: 'choose another with --port N',
      endpoint,
      drain: { delayMs: drainDelayMs(values) },
      warm: () => Promise.all((job.servers?.map((server) => server.mcp) ?? [job.mcp]).map((app) => app.warm())),
      origin,
      behindProxy: issuer !== undefined,
      observer,
    })
    // after the line scripts wait for: how to make the first administrator, while there is none
    if (job.as !== undefined) await printFirstAdministratorNotice(job.as, 'gateway', redis === undefined ? `--data-dir ${dataDir}` : `--redis URL --data-dir ${dataDir}`)
    process.stdout.write(
      [
        '',
        ...(fileServers === undefined
          ? [
              `  MCP endpoint        ${origin}/mcp   (also /sse and /rest; bearer tokens required)`,
              `  Serving             ${upstream !== undefined ? `${upstream.url}   (an upstream session per session or principal; principal JWT in ${upstream.header ?? g.upstreamHeader})` : [command, ...args].join(' ')}${upstream !== undefined ? '' : values.shared === true ? '   (one child for everyone: --shared)' : '   (a child per session, one per stateless principal)'}`,
            ]
          : fileServers.flatMap((server) => [
              `  MCP endpoint        ${origin}/${server.name}/mcp   (also /${server.name}/sse and /${server.name}/rest)`,
              `    serving           ${[server.child.command, ...(server.child.args ?? [])].join(' ')}${server.shared === true ? '   (one child for everyone)' : ''}`,
              `    metadata          ${origin}/.well-known/oauth-protected-resource/${server.name}/mcp`,
            ])),
        `  Authorization       ${job.issuer}${job.as === undefined ? '   (another server: --auth-server)' : ''}`,
        ...(fileServers === undefined ? [`  Resource metadata   ${origin}/.well-known/oauth-protected-resource/mcp`] : []),
        ...(job.as === undefined
          ? []
          : ['', `Accounts: mcp-auth users add <name> --server ${origin} (as an administrator; the console: ${origin}/admin; with the gateway stopped: --data-dir ${dataDir})`]),
        '',
      ].join('\n'),
    )
    await closed
    await metricsListener?.close()
  },
}

/** `--upstream URL [--upstream-header NAME] [--upstream-transport KIND]`, or nothing when a command is given instead. */
function upstreamChoice(values: Record<string, unknown>, hasCommand: boolean): GatewayUpstream | undefined {
  const url = values.upstream
  if (typeof url !== 'string') {
    for (const option of ['upstream-header', 'upstream-transport']) if (values[option] !== undefined) throw new UsageError(`--${option} goes with --upstream URL`)
    return undefined
  }
  if (hasCommand) throw new UsageError('give either --upstream URL or a command after --, not both')
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--upstream must be an http(s) URL, got ${url}`)
  const header = values['upstream-header']
  if (typeof header === 'string' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw new UsageError(`--upstream-header must be a header name, got ${JSON.stringify(header)}`)
  const transport = values['upstream-transport']
  if (transport !== undefined && transport !== 'streamable-http' && transport !== 'sse' && transport !== 'auto') {
    throw new UsageError(`--upstream-transport takes streamable-http, sse or auto, got ${String(transport)}`)
  }
  return { url, ...(typeof header === 'string' ? { header } : {}), ...(transport !== undefined ? { transport } : {}) }
}

/** `--tool-scope T=S` (repeatable): each tool's extra scopes. */
function parseToolScopes(entries: readonly string[]): Record<string, string[]> {
  const scopes: Record<string, string[]> = {}
  for (const entry of entries) {
    const at = entry.indexOf('=')
    if (at <= 0 || at === entry.length - 1) throw new UsageError(`--tool-scope takes TOOL=SCOPE, got ${JSON.stringify(entry)}`)
    const tool = entry.slice(0, at)
    scopes[tool] = [...(scopes[tool] ?? []), ...parseScopes(entry.slice(at + 1))]
  }
  return scopes
}

/** A positive number option, scaled (seconds to ms); absent: nothing. */
function positive<K extends string>(values: Record<string, unknown>, option: string, key: K, scale: number): Partial<Record<K, number>> {
  const text = values[option]
  if (typeof text !== 'string') return {}
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${option} must be a positive number, got ${text}`)
  return { [key]: Math.round(value * scale) } as Partial<Record<K, number>>
}
