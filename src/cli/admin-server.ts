import type { AuthorizationServer } from '../auth/server/create-authorization-server.js'
import type { AuthorizationServerOptions } from '../auth/server/options.js'
import { defaults } from '../config/defaults.js'
import { loadConfigFile } from '../config/load-config-file.js'

/** Options of the commands that administer a data directory through the authorization server. */
export const ADMIN_OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
} as const

export const ADMIN_USAGE = `  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  --config FILE    the server's JSON configuration (its upstream provider, so revocations reach it)
`

/**
 * Opens the authorization server over a data directory for one administrative operation, then
 * closes it. The store admits one process: beside a running server on the same directory this is
 * refused (stop the server first), so nothing is ever written by two processes.
 */
export async function withAdminServer<T>(values: Record<string, string | boolean | undefined>, run: (as: AuthorizationServer) => Promise<T>): Promise<T> {
  const fromFile = (typeof values.config === 'string' ? await loadConfigFile(values.config) : {}) as AuthorizationServerOptions
  const dataDir = (values['data-dir'] as string | undefined) ?? fromFile.dataDir ?? defaults.storage.dataDir
  const { createAuthorizationServer } = await import('../auth/server/create-authorization-server.js')
  const as = await createAuthorizationServer({ ...fromFile, dataDir })
  try {
    return await run(as)
  } finally {
    await as.close()
  }
}
