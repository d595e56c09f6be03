import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { defaults } from '../../../config/defaults.js'
import type { AuthStorage } from '../../../storage/types.js'
import type { OpenedStorage } from '../stores/open-storage.js'
import { SecretBox } from './secret-box.js'

/** Where an embedded store keeps the digest of the secrets its sealed data was made with (Redis: the cluster key record). */
const COLLECTION = 'cluster'
const EMBEDDED_ID = 'secrets'
const CLUSTER_ID = 'keys'
/** What `secrets.json` is for, in refusals that name it missing. */
export const WHAT_SECRETS_PROTECT =
  'That file protects the sealed client secrets of confidential clients, upstream tokens and per-account values (mcp-auth user-env), and holds the cookie and CSRF keys ' +
  'and the key the DPoP nonce and MCP requestState keys are derived from: new secrets would make that data unreadable.'
/** The records whose values are sealed with the data key (upstream login's tokens). */
const SEALED_RECORDS = 'upstream-tokens'
/** The per-account values (`mcp-auth user-env`), sealed under a key derived from the data key. */
const ACCOUNT_VALUES = 'account-values'

/**
 * Refuses a start whose `secrets.json` had to be created while the store already holds data
 * sealed with the key it held: new secrets would leave every confidential client's secret and
 * every upstream token unreadable (500 for each), silently. The store tells by the digest of the
 * secrets recorded at an earlier start (Redis: the deployment's key record that every node checks;
 * an embedded store: a record of its own, written here), or, for a store from before the digest
 * was recorded, by a sealed value in it. The file created a moment ago is removed again, so the
 * next start does not find it and go on.
 */
export async function refuseLostSecrets(opened: OpenedStorage, dataDir: string, digest: string, created: boolean): Promise<void> {
  const { records } = opened.storage
  const shared = opened.connection !== undefined
  let recorded: string | undefined
  if (shared) recorded = (await records.get<{ secrets?: string }>(COLLECTION, CLUSTER_ID))?.secrets
  else if (!(await records.create(COLLECTION, EMBEDDED_ID, { version: 1, secrets: digest, recordedAt: Date.now() })))
    recorded = (await records.get<{ secrets?: string }>(COLLECTION, EMBEDDED_ID))?.secrets
  if (!created) return
  const lost = recorded !== undefined ? recorded !== digest : await holdsSealedData(opened.storage)
  if (!lost) return
  const path = join(dataDir, defaults.authServer.keys.secretsFile)
  // ours to remove: this start wrote it, and a later start must not take it for the real one
  await rm(path, { force: true })
  // a node of a deployment: checkClusterKeys refuses next, naming every key file to copy
  if (shared && recorded !== undefined) return
  if (!shared) await records.delete(COLLECTION, EMBEDDED_ID).catch(() => undefined)
  throw new Error(lostSecretsMessage(path, opened, dataDir))
}

async function holdsSealedData(storage: AuthStorage): Promise<boolean> {
  const clients = await storage.adapter('Client').list()
  if (clients.some(({ payload }) => SecretBox.isSealed(payload['client_secret']))) return true
  const sessions = await storage.records.list<{ sealed?: unknown }>(SEALED_RECORDS)
  if (sessions.some((session) => SecretBox.isSealed(session.sealed))) return true
  return (await storage.records.list(ACCOUNT_VALUES)).length > 0
}

function lostSecretsMessage(path: string, opened: OpenedStorage, dataDir: string): string {
  const startOver =
    opened.connection !== undefined
      ? `delete the deployment's data in Redis (every key under the prefix "${opened.connection.prefix}", e.g. redis-cli --scan --pattern '${opened.connection.prefix}*' | xargs redis-cli del) and start again`
      : `remove the store ${join(dataDir, defaults.storage.dbFile)} with its ${defaults.storage.snapshotFile} and ${defaults.storage.journalFile}.* (accounts, clients and grants go with it) and start again`
  return (
    `${path} is missing, but the store holds data sealed with the data key it held. ${WHAT_SECRETS_PROTECT} ` +
    `Refusing to start. Restore ${path} from a backup, or copy it from another node's data directory; ` +
    `to start over deliberately, ${startOver}.`
  )
}
