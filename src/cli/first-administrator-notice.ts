import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'

/**
 * On a store without an administrator, tells the operator (stderr, after the listening line, so
 * scripts waiting for that line are unaffected) how to make the first one: `users add NAME
 * --admin` on this store, or the one-time setup link, printed by one start only (see
 * AuthorizationServer.firstAdministrator).
 */
export async function printFirstAdministratorNotice(as: Pick<AuthorizationServer, 'firstAdministrator'>, command: string, store: string): Promise<void> {
  const notice = await as.firstAdministrator().catch((error: Error) => {
    process.stderr.write(`mcp-auth ${command}: could not check for an administrator: ${error.message}\n`)
    return undefined
  })
  if (notice === undefined || notice.kind === 'present') return
  const lines = [
    `mcp-auth ${command}: this server has no administrator yet. Make the first one:`,
    `  mcp-auth users add NAME --admin ${store}   (with the server stopped; with it running: --redis, or --server URL once an administrator exists)`,
    notice.kind === 'link'
      ? `  or open this one-time setup link (until ${new Date(notice.expiresAt).toISOString()}): ${notice.url}`
      : `  or the one-time setup link printed at ${new Date(notice.at).toISOString()} (valid until ${new Date(notice.expiresAt).toISOString()}; a new one is printed by the first start after that)`,
  ]
  process.stderr.write(`${lines.join('\n')}\n`)
}
