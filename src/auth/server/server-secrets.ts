import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { defaults } from '../../config/defaults.js'
import { readJsonFile, writePrivateFile } from '../../storage/private-file.js'

/** Secrets the authorization server generates on first start and keeps in the data directory. */
export interface ServerSecrets {
  /** Keys that sign oidc-provider's cookies (newest first; older ones still verify). */
  cookieKeys: string[]
  /** 32-byte key (base64url) that encrypts secrets at rest (client secrets, upstream tokens). */
  dataKey: string
  /** 32-byte key (base64url) for CSRF tokens on the login and consent forms. */
  csrfKey: string
}

const fresh = (): string => randomBytes(32).toString('base64url')

/** Loads the server's secrets from `secrets.json` in the data directory, creating it (0600). */
export async function loadServerSecrets(dataDir: string): Promise<ServerSecrets> {
  const path = join(dataDir, defaults.authServer.keys.secretsFile)
  const stored = (await readJsonFile<Partial<ServerSecrets>>(path)) ?? {}
  const secrets: ServerSecrets = {
    cookieKeys: Array.isArray(stored.cookieKeys) && stored.cookieKeys.length > 0 ? stored.cookieKeys : [fresh()],
    dataKey: typeof stored.dataKey === 'string' ? stored.dataKey : fresh(),
    csrfKey: typeof stored.csrfKey === 'string' ? stored.csrfKey : fresh(),
  }
  if (JSON.stringify(secrets) !== JSON.stringify(stored)) {
    await writePrivateFile(path, JSON.stringify(secrets, null, 2))
  }
  return secrets
}
