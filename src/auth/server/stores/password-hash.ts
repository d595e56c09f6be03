import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { defaults } from '../../../config/defaults.js'

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** Hashes a password with scrypt: `scrypt$N$r$p$salt$hash` (base64url), parameters from defaults. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, maxmem } = defaults.authServer.scrypt
  const salt = randomBytes(16)
  const hash = await scrypt(password, salt, keyLength, { N, r, p, maxmem })
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number]
  const salt = Buffer.from(parts[4]!, 'base64url')
  const expected = Buffer.from(parts[5]!, 'base64url')
  if (![N, r, p].every(Number.isSafeInteger) || expected.length === 0) return false
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: defaults.authServer.scrypt.maxmem })
  return timingSafeEqual(actual, expected)
}
