import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { defaults } from '../config/defaults.js'

/** A fresh key for the server file: 32 random bytes, base64url. */
export function newStatusKey(): string {
  return randomBytes(32).toString('base64url')
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * Whether `req` carries `key` in its status header, compared in constant time (both sides hashed
 * first, so neither a byte nor the length leaks through the time taken).
 */
export function holdsStatusKey(req: IncomingMessage, key: string): boolean {
  const given = req.headers[defaults.cli.statusKeyHeader]
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(key))
}
