import { defaults } from '../config/defaults.js'

/** A server's name behind the gateway: its path segment (`/<name>/mcp`), lowercase. */
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/

/**
 * First path segments the origin serves itself: the MCP routes at the root, the authorization
 * server's endpoints and pages, the health check. A server named one of them would hide them.
 */
const RESERVED = new Set(
  [
    defaults.streamableHttp.path,
    defaults.legacySse.ssePath,
    defaults.legacySse.messagesPath,
    defaults.statelessJson.path,
    ...Object.values(defaults.authServer.routes),
    defaults.authServer.interactionPath,
    defaults.cli.healthPath,
  ]
    .map((path) => path.split('/')[1]!)
    .concat(['callback', 'login', 'logout', 'consent', 'device', 'admin', 'static', 'assets']),
)

/**
 * Why `name` cannot name a server behind the gateway, or undefined when it can: a path segment
 * (`^[a-z0-9][a-z0-9-]{0,62}$`) none of the origin's own paths uses.
 */
export function gatewayServerNameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return `${JSON.stringify(name)} is not a server name: 1 to 63 of a-z, 0-9 and -, not starting with -`
  if (RESERVED.has(name)) return `${JSON.stringify(name)} is a path the gateway serves itself (${[...RESERVED].sort().join(', ')} are taken)`
  return undefined
}
