import { createHash, randomBytes } from 'node:crypto'
import type { OidcAdapter } from '../../../storage/types.js'
import type { AccountAdmin } from '../admin/account-admin.js'
import type { Account, AccountStore } from '../stores/account-store.js'

/** The store's one setup link record (expires with the link), and the claims of used links. */
const SETUP = 'AdminSetupLink'
const CURRENT = 'current'
const USED = 'AdminSetupUse'

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')

/** What a start says about the first administrator. */
export type FirstAdministratorNotice =
  /** The store has an administrator: nothing to say. */
  | { kind: 'present' }
  /** This start made the store's setup link: print it (its token is nowhere else). */
  | { kind: 'link'; token: string; expiresAt: number }
  /** Another start (this node earlier, or another node) printed a link still valid. */
  | { kind: 'printed'; at: number; expiresAt: number }

/**
 * The first administrator of a store without one: a one-time setup link, made first-writer-wins
 * (an atomic `create` in the store: of several nodes starting together one makes and prints it),
 * a new one only once the last expired. The link's page creates one administrator account, once
 * (an atomic claim), and only while the store still has none.
 */
export class FirstAdministrator {
  readonly #adapter: (name: string) => OidcAdapter
  readonly #accounts: AccountStore
  readonly #ttlSeconds: number

  constructor(deps: { adapter: (name: string) => OidcAdapter; accounts: AccountStore; ttlSeconds: number }) {
    this.#adapter = deps.adapter
    this.#accounts = deps.accounts
    this.#ttlSeconds = deps.ttlSeconds
  }

  /** What a start prints: nothing, a new link, or when another start printed the live one. */
  async announce(): Promise<FirstAdministratorNotice> {
    if ((await this.#accounts.administratorIds()).length > 0) return { kind: 'present' }
    const links = this.#adapter(SETUP)
    // two tries: the live link may expire between our create and our read
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = randomBytes(32).toString('base64url')
      const now = Date.now()
      const expiresAt = now + this.#ttlSeconds * 1000
      if (await links.create(CURRENT, { digest: digest(token), at: now, expiresAt }, this.#ttlSeconds)) return { kind: 'link', token, expiresAt }
      const live = await links.find(CURRENT)
      if (live !== undefined) return { kind: 'printed', at: Number(live['at']), expiresAt: Number(live['expiresAt']) }
    }
    throw new Error('the setup link could not be made: the store kept changing under it, start again')
  }

  /** Whether `token` is the live setup link and the store still has no administrator. */
  async isLive(token: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false
    const live = await this.#adapter(SETUP).find(CURRENT)
    return live?.['digest'] === digest(token) && (await this.#accounts.administratorIds()).length === 0
  }

  /**
   * Creates the first administrator with the link, once: the link is claimed atomically first (two
   * submissions, two nodes: one wins), then the account is made through the administration's rules
   * (never the demo account). A refused account (name taken, password too short) frees the claim,
   * so the person may try again with the same link. Undefined when the link is not live.
   */
  async use(token: string, input: { username: string; password: string }, admin: AccountAdmin): Promise<Account | undefined> {
    if (!(await this.isLive(token))) return undefined
    const used = this.#adapter(USED)
    if (!(await used.create(digest(token), { at: Date.now() }, this.#ttlSeconds))) return undefined
    try {
      const { account } = await admin.create({ username: input.username, password: input.password, role: 'admin' })
      await this.#adapter(SETUP).destroy(CURRENT)
      return account
    } catch (error) {
      await used.destroy(digest(token))
      throw error
    }
  }
}
