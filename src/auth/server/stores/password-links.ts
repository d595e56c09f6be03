import { createHash, randomBytes } from 'node:crypto'
import type { OidcAdapter } from '../../../storage/types.js'

/** Model names in the store: expiring records, gone with their links. */
const LINKS = 'PasswordLink'
/** Per account, the digest of its one live link: a new link replaces the one before. */
const CURRENT = 'PasswordLinkOf'
/** Links used: the atomic first-writer-wins claim that makes a link single-use on every node. */
const USED = 'PasswordLinkUse'

export type PasswordLinkPurpose = 'reset' | 'setup'

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')

/**
 * One-time set-password links: a random token handed to a person (its digest alone is stored),
 * valid until it expires, for one use, and only while it is the account's latest link. Used on
 * two nodes at the same instant, exactly one use wins (an atomic claim in the store). Every
 * record expires with its link: nothing piles up.
 */
export class PasswordLinks {
  readonly #adapter: (name: string) => OidcAdapter

  constructor(adapter: (name: string) => OidcAdapter) {
    this.#adapter = adapter
  }

  /** A new link token for the account (the one before stops working), valid `ttlSeconds`. */
  async create(accountId: string, ttlSeconds: number, purpose: PasswordLinkPurpose = 'reset'): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url')
    const expiresAt = Date.now() + ttlSeconds * 1000
    await this.#adapter(LINKS).upsert(digest(token), { accountId, purpose, expiresAt }, ttlSeconds)
    await this.#adapter(CURRENT).upsert(accountId, { digest: digest(token) }, ttlSeconds)
    return { token, expiresAt }
  }

  /** The account a live link is for, without using it (the page that asks for the new password). */
  async peek(token: string): Promise<{ accountId: string; purpose: PasswordLinkPurpose; expiresAt: number } | undefined> {
    return this.#live(token)
  }

  /** Uses a link: the account it was for, once; undefined when unknown, expired, replaced or used (on any node). */
  async use(token: string): Promise<{ accountId: string; purpose: PasswordLinkPurpose } | undefined> {
    const link = await this.#live(token)
    if (link === undefined) return undefined
    const ttl = Math.max(1, Math.ceil((link.expiresAt - Date.now()) / 1000))
    if (!(await this.#adapter(USED).create(digest(token), { at: Date.now() }, ttl))) return undefined
    await this.#adapter(LINKS).destroy(digest(token))
    await this.#adapter(CURRENT).destroy(link.accountId)
    return { accountId: link.accountId, purpose: link.purpose }
  }

  /** Ends the account's live link, if any (the account was deleted, or its password set another way). */
  async revoke(accountId: string): Promise<void> {
    const current = await this.#adapter(CURRENT).find(accountId)
    if (typeof current?.['digest'] === 'string') await this.#adapter(LINKS).destroy(current['digest'])
    await this.#adapter(CURRENT).destroy(accountId)
  }

  async #live(token: string): Promise<{ accountId: string; purpose: PasswordLinkPurpose; expiresAt: number } | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined
    const link = await this.#adapter(LINKS).find(digest(token))
    if (link === undefined || typeof link['accountId'] !== 'string') return undefined
    const current = await this.#adapter(CURRENT).find(link['accountId'])
    if (current?.['digest'] !== digest(token)) return undefined
    return { accountId: link['accountId'], purpose: link['purpose'] === 'setup' ? 'setup' : 'reset', expiresAt: Number(link['expiresAt']) }
  }
}
