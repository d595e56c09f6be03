import { createRequire } from 'node:module'
import type { AuthStorage } from '../storage/types.js'
import type { CliServerOptions } from './serve.js'
import { removeServerFile, writeServerFile } from './server-file.js'
import { newStatusKey } from './status-key.js'

/** The package's version, as `mcp-auth status` shows it (dist/cli/ and src/cli/ are both two levels down). */
const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version

/** What a serving command on an embedded store adds to its health endpoint, and the server file that tells `mcp-auth status` about it. */
export interface StoreStatusEndpoint {
  /** For createCliServer: the details a request with the key is given. */
  status: NonNullable<CliServerOptions['status']>
  /** Writes the server file once the server listens at `url`. */
  publish(url: string): Promise<void>
  /** Removes it (after the drain: until then the server still answers). */
  withdraw(): Promise<void>
}

/**
 * The status endpoint of a server on the embedded store in `dataDir`: `GET /healthz` with the
 * key of the server file adds `storage` (the store's stats), `version`, `pid` and `uptimeSeconds`.
 */
export function storeStatusEndpoint(dataDir: string, storage: AuthStorage): StoreStatusEndpoint {
  const key = newStatusKey()
  return {
    status: {
      key,
      details: async () => ({ storage: storage.stats?.(), version, pid: process.pid, uptimeSeconds: Math.round(process.uptime()) }),
    },
    publish: (url) => writeServerFile(dataDir, { pid: process.pid, url, key }),
    withdraw: () => removeServerFile(dataDir),
  }
}

/** A URL of a server listening on `host`, reachable from this machine (a wildcard address is reached on loopback). */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::' || host === '[::]') return '::1'
  return host
}
