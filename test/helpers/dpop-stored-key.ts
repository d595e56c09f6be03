import { readFile } from 'node:fs/promises'
import { DpopKey, type StoredDpopKey } from '../../src/auth/client/dpop.js'

/** The DPoP key the login helper stored for `issuer` (the first one when none is named). */
export async function storedDpopKey(storeFile: string, issuer?: string): Promise<DpopKey> {
  const saved = JSON.parse(await readFile(storeFile, 'utf8')) as { dpopKeys?: Record<string, StoredDpopKey> }
  const key = issuer === undefined ? Object.values(saved.dpopKeys ?? {})[0] : saved.dpopKeys?.[issuer]
  if (key === undefined) throw new Error(`no DPoP key in ${storeFile}`)
  return DpopKey.load(key)
}

/**
 * A token request as the key's owner makes it: a DPoP proof for the token endpoint, and once more
 * with the server's nonce when it asks for one (400 use_dpop_nonce).
 */
export async function dpopTokenRequest(tokenUrl: string, body: URLSearchParams, key: DpopKey): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await key.proof('POST', tokenUrl) },
      body,
    })
    key.observe(tokenUrl, response)
    if (attempt > 0 || response.status !== 400 || !response.headers.has('dpop-nonce')) return response
    await response.body?.cancel()
  }
}
