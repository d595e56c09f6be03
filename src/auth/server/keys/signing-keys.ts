import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose'
import { defaults } from '../../../config/defaults.js'
import { createPrivateFile, readJsonFile, writePrivateFile } from '../../../storage/private-file.js'

/** A private signing JWK as oidc-provider takes it. */
export type PrivateJwk = JWK & { kid: string; alg: string; use: 'sig' }

interface KeysFile {
  version: 1
  /** Keys that sign, newest set first. */
  current: PrivateJwk[]
  /** Keys that no longer sign but stay published until `retiredAt` + the retired-key lifetime. */
  retired: Array<{ jwk: PrivateJwk; retiredAt: number }>
}

/**
 * Algorithms we keep a key for: the access-token algorithm (ES256 by default) and RS256, which
 * OpenID Connect requires for ID tokens unless a client registers otherwise.
 */
function algorithms(accessTokenAlg: string): string[] {
  return [...new Set([accessTokenAlg, 'RS256'])]
}

async function generate(alg: string): Promise<PrivateJwk> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  const jwk = await exportJWK(privateKey)
  const kid = await calculateJwkThumbprint(jwk)
  return { ...jwk, kid, alg, use: 'sig' }
}

function file(dataDir: string): string {
  return join(dataDir, defaults.authServer.keys.jwksFile)
}

/**
 * Loads the authorization server's signing keys from the data directory, generating them on
 * first start (written 0600). Retired keys past their lifetime are dropped. Returns the JWKS for
 * oidc-provider's `jwks` option (`keys`: signing keys first, then the retired ones still published)
 * and the {@link signingKeysFingerprint} of the signing keys. Nodes starting at once on one empty
 * shared directory end with the same keys: the first to create the file wins, the others read it.
 *
 * `shared`: the file is one of a deployment's nodes (Redis). A key missing for `accessTokenAlg` is
 * then an error instead of being added, since one node adding it would change the keys every node
 * must hold (`mcp-auth keys rotate` makes keys for a new algorithm and records them).
 */
export async function loadSigningKeys(
  dataDir: string,
  options: { accessTokenAlg?: string; now?: number; shared?: boolean } = {},
): Promise<{ keys: PrivateJwk[]; fingerprint: string }> {
  const accessTokenAlg = options.accessTokenAlg ?? defaults.authServer.accessTokenAlg
  const now = options.now ?? Date.now()
  const path = file(dataDir)
  let stored = await readJsonFile<KeysFile>(path)
  let changed = false
  if (stored === undefined) {
    const created: KeysFile = { version: 1, current: await Promise.all(algorithms(accessTokenAlg).map(generate)), retired: [] }
    if (await createPrivateFile(path, JSON.stringify(created, null, 2))) return { keys: created.current, fingerprint: await signingKeysFingerprint(created.current) }
    stored = (await readJsonFile<KeysFile>(path))!
  }
  if (stored.version !== 1 || !Array.isArray(stored.current) || !Array.isArray(stored.retired)) {
    throw new Error(`${path} is not a signing-key file this version understands`)
  }
  for (const alg of algorithms(accessTokenAlg)) {
    if (!stored.current.some((key) => key.alg === alg)) {
      if (options.shared === true) {
        throw new Error(
          `${path} has no ${alg} signing key (accessTokenAlg ${accessTokenAlg}): configure the algorithm its keys are for, or run 'mcp-auth keys rotate' with this configuration and give every node the new file`,
        )
      }
      stored.current.push(await generate(alg))
      changed = true
    }
  }
  const lifetimeMs = defaults.authServer.keys.retiredKeyLifetimeSeconds * 1000
  const live = stored.retired.filter((entry) => entry.retiredAt + lifetimeMs > now)
  if (live.length !== stored.retired.length) {
    stored.retired = live
    changed = true
  }
  if (changed) await writePrivateFile(path, JSON.stringify(stored, null, 2))
  return { keys: [...stored.current, ...stored.retired.map((entry) => entry.jwk)], fingerprint: await signingKeysFingerprint(stored.current) }
}

/** The {@link signingKeysFingerprint} of the data directory's signing keys as they are (nothing generated or dropped). */
export async function storedSigningKeysFingerprint(dataDir: string): Promise<string> {
  const stored = await readJsonFile<KeysFile>(file(dataDir))
  if (stored === undefined || !Array.isArray(stored.current)) throw new Error(`${file(dataDir)} holds no signing keys`)
  return signingKeysFingerprint(stored.current)
}

/**
 * Names a set of signing keys without showing them: a SHA-256 of their sorted RFC 7638
 * thumbprints (public parts only). Retired keys are left out, so nodes that dropped an expired
 * one at different starts still agree.
 */
export async function signingKeysFingerprint(keys: PrivateJwk[]): Promise<string> {
  const thumbprints = await Promise.all(keys.map((key) => calculateJwkThumbprint(publicJwk(key))))
  return createHash('sha256')
    .update(`mcp-auth signing keys v1\n${thumbprints.sort().join('\n')}`)
    .digest('base64url')
}

/**
 * Rotates the signing keys: new keys sign from the next start on; the previous ones stay
 * published for `retiredKeyLifetimeSeconds` so tokens they signed still verify.
 * @returns the new keys' `kid`s.
 */
export async function rotateSigningKeys(dataDir: string, options: { accessTokenAlg?: string; now?: number } = {}): Promise<string[]> {
  await loadSigningKeys(dataDir, options)
  const path = file(dataDir)
  const stored = (await readJsonFile<KeysFile>(path))!
  const now = options.now ?? Date.now()
  const fresh = await Promise.all(algorithms(options.accessTokenAlg ?? defaults.authServer.accessTokenAlg).map(generate))
  stored.retired = [...stored.current.map((jwk) => ({ jwk, retiredAt: now })), ...stored.retired]
  stored.current = fresh
  await writePrivateFile(path, JSON.stringify(stored, null, 2))
  return fresh.map((key) => key.kid)
}

/** The public half of a signing key, as the JWKS endpoint publishes it. */
export function publicJwk(jwk: PrivateJwk): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, k: _k, ...publicPart } = jwk
  return publicPart
}
