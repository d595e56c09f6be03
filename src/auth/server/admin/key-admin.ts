import { join } from 'node:path'
import { defaults } from '../../../config/defaults.js'
import type { RecordStore } from '../../../storage/types.js'
import { recordedClusterKeys, rotateClusterKeys } from '../keys/cluster-keys.js'
import { rotateSigningKeys, storedSigningKeysFingerprint } from '../keys/signing-keys.js'
import { AdminAudit } from './admin-audit.js'

export interface KeyAdminOptions {
  records: RecordStore
  dataDir: string
  accessTokenAlg: string
  /** Several nodes (Redis): the deployment's fingerprint is the one recorded in the shared store. */
  shared: boolean
  /** Records `keys.rotated` (default: nothing recorded). */
  audit?: AdminAudit
}

/** What a rotation did. */
export interface KeyRotation {
  /** The new keys' `kid`s. */
  kids: string[]
  /** The fingerprint of the new signing keys: what every node must sign with after its restart. */
  fingerprint: string
  /** The file that holds them now, on the node that rotated: every other node needs a copy. */
  file: string
}

/**
 * The signing keys of a deployment as an administrator handles them: which keys it is to sign
 * with, and their rotation as `mcp-auth keys rotate` does it (docs/deployment.md). Private keys
 * stay files in each node's data directory: a rotation writes the serving node's `jwks.json`
 * and, on Redis, records the new fingerprint (nodes still holding the old file then refuse to
 * start). Running nodes keep signing with the keys they started with until restarted.
 */
export class KeyAdmin {
  readonly #options: KeyAdminOptions
  #rotating: Promise<KeyRotation> | undefined

  constructor(options: KeyAdminOptions) {
    this.#options = options
  }

  /**
   * The fingerprint of the keys the deployment is to sign with: on Redis the recorded one, else
   * this data directory's `jwks.json` (what the next start signs with).
   */
  async current(): Promise<{ fingerprint: string | undefined; recordedAt?: number }> {
    if (!this.#options.shared) return { fingerprint: await storedSigningKeysFingerprint(this.#options.dataDir) }
    const recorded = (await recordedClusterKeys(this.#options.records)) as { signingKeys?: string; recordedAt?: number } | undefined
    return { fingerprint: recorded?.signingKeys, ...(typeof recorded?.recordedAt === 'number' ? { recordedAt: recorded.recordedAt } : {}) }
  }

  /** Rotates this node's signing keys (one rotation at a time in this process) and records them on Redis. */
  rotate(): Promise<KeyRotation> {
    this.#rotating ??= this.#rotate().finally(() => {
      this.#rotating = undefined
    })
    return this.#rotating
  }

  async #rotate(): Promise<KeyRotation> {
    const { records, dataDir, accessTokenAlg, shared } = this.#options
    const kids = shared ? await rotateClusterKeys(records, dataDir, { accessTokenAlg }) : await rotateSigningKeys(dataDir, { accessTokenAlg })
    const fingerprint = await storedSigningKeysFingerprint(dataDir)
    ;(this.#options.audit ?? AdminAudit.none()).record({ type: 'keys.rotated', result: 'success', details: { kids, fingerprint, shared } })
    return { kids, fingerprint, file: join(dataDir, defaults.authServer.keys.jwksFile) }
  }
}
