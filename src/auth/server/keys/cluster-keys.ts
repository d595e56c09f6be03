import { join } from 'node:path'
import { defaults } from '../../../config/defaults.js'
import { access, readFile } from 'node:fs/promises'
import { exists } from '../../../storage/fd.js'
import { writePrivateFile } from '../../../storage/private-file.js'
import type { RecordStore } from '../../../storage/types.js'
import { WHAT_SECRETS_PROTECT } from './refuse-lost-secrets.js'
import { loadServerSecrets, secretsDigest } from './server-secrets.js'
import { loadSigningKeys, rotateSigningKeys, storedSigningKeysFingerprint } from './signing-keys.js'

const COLLECTION = 'cluster'
const ID = 'keys'

/** What identifies a node's key files, without showing them. */
export interface KeyFingerprints {
  /** signingKeysFingerprint of the signing keys in `jwks.json`. */
  signingKeys: string
  /** secretsDigest of `secrets.json`. */
  secrets: string
}

interface Recorded extends KeyFingerprints {
  version: 1
  recordedAt: number
  /** Revision: one more at each rotation, so two rotations at once cannot both be recorded. */
  rev?: number
}

/**
 * Every node of a deployment must sign with the same keys and seal with the same secrets: a token
 * signed by one is verified by another, a client secret sealed by one is opened by another. The
 * key files stay in each node's data directory (private keys never go to Redis); the first node
 * to start records their fingerprints in the shared store, and a node whose files differ refuses
 * to start, naming the files to copy, instead of serving tokens and cookies the others reject.
 */
export async function checkClusterKeys(records: RecordStore, mine: KeyFingerprints, dataDir: string, now: () => number = Date.now): Promise<void> {
  const fresh: Recorded = { version: 1, ...mine, recordedAt: now() }
  let recorded: Partial<Recorded> | undefined
  // A second round only when the record was removed (by hand) between create and get.
  for (let round = 0; round < 2 && recorded === undefined; round++) {
    if (await records.create(COLLECTION, ID, fresh)) return
    recorded = await records.get<Partial<Recorded>>(COLLECTION, ID)
  }
  if (recorded === undefined) throw new Error("cannot read the deployment's key fingerprints from the shared store")
  const files: string[] = []
  if (recorded.signingKeys !== mine.signingKeys) files.push(join(dataDir, defaults.authServer.keys.jwksFile))
  if (recorded.secrets !== mine.secrets) files.push(join(dataDir, defaults.authServer.keys.secretsFile))
  if (files.length === 0) return
  const since = typeof recorded.recordedAt === 'number' ? ` (recorded ${new Date(recorded.recordedAt).toISOString()})` : ''
  // a node whose secrets.json was created (and removed again) by this start: say what the file protects
  const secretsPath = join(dataDir, defaults.authServer.keys.secretsFile)
  const missing = files.includes(secretsPath) && !(await exists(secretsPath)) ? ` ${secretsPath} is missing. ${WHAT_SECRETS_PROTECT}` : ''
  throw new Error(
    `${files.join(' and ')} ${files.length === 1 ? 'differs' : 'differ'} from the keys the other nodes of this deployment use${since}. ` +
      `Every node needs the same ${defaults.authServer.keys.jwksFile} and ${defaults.authServer.keys.secretsFile}: ` +
      `copy them from a running node's data directory into ${dataDir} (or share one directory), then start again. ` +
      `After 'mcp-auth keys rotate --redis URL', every node needs the new ${defaults.authServer.keys.jwksFile}.${missing}`,
  )
}

/**
 * `mcp-auth keys rotate` for a deployment (and the admin API's): checks that this data directory
 * holds the deployment's key files, rotates its signing keys ({@link rotateSigningKeys}) and
 * records the new fingerprint, so nodes still holding the old `jwks.json` refuse to start until
 * they get the new one. Running nodes keep signing with the old keys until restarted. Of two
 * rotations at once (on two nodes), one goes through: each first claims the record's next
 * revision, and the other throws without changing a file.
 * @returns the new keys' `kid`s.
 */
export async function rotateClusterKeys(records: RecordStore, dataDir: string, options: { accessTokenAlg?: string; now?: () => number } = {}): Promise<string[]> {
  const now = options.now ?? Date.now
  for (const name of [defaults.authServer.keys.jwksFile, defaults.authServer.keys.secretsFile]) {
    const path = join(dataDir, name)
    await access(path).catch((error: unknown) => {
      throw new Error(`${path} is missing: rotate the keys in the data directory of a node of the deployment`, { cause: error })
    })
  }
  const keyOptions = { ...(options.accessTokenAlg !== undefined ? { accessTokenAlg: options.accessTokenAlg } : {}), now: now() }
  const secrets = secretsDigest(await loadServerSecrets(dataDir))
  await checkClusterKeys(records, { signingKeys: await storedSigningKeysFingerprint(dataDir), secrets }, dataDir, now)
  // the rotation claims the record's next revision before it touches a file: of two at once, the
  // one that loses changes nothing
  const before = await records.get<Partial<Recorded>>(COLLECTION, ID)
  const rev = before?.rev ?? 0
  const busy = () =>
    new Error(
      `another node is rotating the deployment's keys at the same time: nothing was changed here; read the keys again (mcp-auth keys list, GET /keys) and copy that node's ${defaults.authServer.keys.jwksFile} once it is done`,
    )
  if (before === undefined || !(await records.putIfRevision(COLLECTION, ID, { ...before, rev: rev + 1 }, rev))) throw busy()
  const jwksPath = join(dataDir, defaults.authServer.keys.jwksFile)
  const previousFile = await readFile(jwksPath)
  const kids = await rotateSigningKeys(dataDir, keyOptions)
  const written = await readFile(jwksPath)
  const recorded: Recorded = { version: 1, signingKeys: (await loadSigningKeys(dataDir, keyOptions)).fingerprint, secrets, recordedAt: now(), rev: rev + 2 }
  if (!(await records.putIfRevision(COLLECTION, ID, recorded, rev + 1))) {
    // another rotation claimed the record meanwhile: put the file back, unless that one wrote it since (a shared directory)
    if ((await readFile(jwksPath)).equals(written)) await writePrivateFile(jwksPath, previousFile)
    throw busy()
  }
  return kids
}

/** The key fingerprints the deployment recorded (see {@link checkClusterKeys}), without recording any. */
export async function recordedClusterKeys(records: RecordStore): Promise<Partial<KeyFingerprints> | undefined> {
  return records.get<Partial<Recorded>>(COLLECTION, ID)
}
