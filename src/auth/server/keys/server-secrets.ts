import { join } from 'node:path'
import { createHash, hkdfSync, randomBytes } from 'node:crypto'
import { defaults } from '../../../config/defaults.js'
import { createPrivateFile, readJsonFile } from '../../../storage/private-file.js'
import type { OpenedStorage } from '../stores/open-storage.js'
import { refuseLostSecrets } from './refuse-lost-secrets.js'

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
const KEY = /^[A-Za-z0-9_-]{43}$/

/**
 * Loads the server's secrets from `secrets.json` in the data directory. Only a missing file is
 * created (0600); a file that exists but lacks a secret is refused: a regenerated data key would
 * make every sealed client secret unreadable (500 for each confidential client) and new cookie
 * keys would sign everyone out — silently. Nodes starting at once on one empty shared directory
 * end with the same secrets: the first to create the file wins, the others read it.
 * Given the server's `store`, a missing file is not created over data sealed with the lost one
 * ({@link refuseLostSecrets}): the start is refused, naming the file.
 */
export async function loadServerSecrets(dataDir: string, store?: OpenedStorage): Promise<ServerSecrets> {
  const path = join(dataDir, defaults.authServer.keys.secretsFile)
  let stored = await readJsonFile<Partial<ServerSecrets> | null>(path)
  if (stored === undefined) {
    const secrets: ServerSecrets = { cookieKeys: [fresh()], dataKey: fresh(), csrfKey: fresh() }
    if (await createPrivateFile(path, JSON.stringify(secrets, null, 2))) {
      if (store !== undefined) await refuseLostSecrets(store, dataDir, secretsDigest(secrets), true)
      return secrets
    }
    stored = await readJsonFile<Partial<ServerSecrets> | null>(path)
  }
  const problems: string[] = []
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) problems.push('it is not a JSON object')
  else {
    if (!Array.isArray(stored.cookieKeys) || stored.cookieKeys.length === 0 || !stored.cookieKeys.every((key) => typeof key === 'string' && key.length >= 32))
      problems.push('cookieKeys is missing or malformed')
    if (typeof stored.dataKey !== 'string' || !KEY.test(stored.dataKey)) problems.push('dataKey is missing or malformed')
    if (typeof stored.csrfKey !== 'string' || !KEY.test(stored.csrfKey)) problems.push('csrfKey is missing or malformed')
  }
  if (problems.length > 0) {
    throw new Error(
      `${path} is damaged (${problems.join('; ')}); refusing to generate new secrets over it, which would make stored client secrets unreadable: restore it from a backup`,
    )
  }
  const secrets = stored as ServerSecrets
  const loaded = { cookieKeys: secrets.cookieKeys, dataKey: secrets.dataKey, csrfKey: secrets.csrfKey }
  if (store !== undefined) await refuseLostSecrets(store, dataDir, secretsDigest(loaded), false)
  return loaded
}

/**
 * A digest of the secrets, to tell whether two nodes hold the same `secrets.json` without
 * showing them (SHA-256 of 256-bit random keys reveals nothing usable).
 */
export function secretsDigest(secrets: ServerSecrets): string {
  const canonical = JSON.stringify([secrets.cookieKeys, secrets.dataKey, secrets.csrfKey])
  return createHash('sha256').update(`mcp-auth secrets v1\n${canonical}`).digest('base64url')
}

/**
 * A 32-byte key of its own for one purpose (HKDF-SHA256 of the data key, the purpose as label):
 * every node with the same secrets derives the same, and no purpose learns another's key.
 */
export function deriveSecret(secrets: Pick<ServerSecrets, 'dataKey'>, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secrets.dataKey, 'base64url'), new Uint8Array(0), purpose, 32))
}
