import { randomUUID } from 'node:crypto'
import type { RecordStore } from '../../../storage/types.js'
import { hashPassword, verifyPassword } from './password-hash.js'
import { usernameKey } from './username-key.js'

/** A local account. `claims` are OpenID Connect claims released with the matching scopes. */
export interface Account {
  id: string
  username: string
  claims: { name?: string; email?: string; email_verified?: boolean; [claim: string]: unknown }
  createdAt: number
  /** For accounts created from an upstream identity provider login (issue #7). */
  upstream?: { issuer: string; subject: string }
  /** Scopes this account may be granted (absent: the resource's default scopes). */
  scopes?: string[]
  /** A disabled account cannot log in, and no token is issued or refreshed for it. */
  disabled?: boolean
}

interface StoredAccount extends Account {
  passwordHash?: string
}

const ACCOUNTS = 'accounts'
const USERNAMES = 'account-usernames'

/** A hash to compare against when the username is unknown, so timing does not reveal which names exist. */
let dummyHash: Promise<string> | undefined

const key = usernameKey

/** Local accounts on the record store: passwords hashed with scrypt, usernames case-insensitive. */
export class AccountStore {
  readonly #records: RecordStore

  constructor(records: RecordStore) {
    this.#records = records
  }

  /**
   * Creates `username`, or sets a new password for it. `scopes` (when given) replaces the scopes
   * the account may be granted; an existing account keeps its scopes otherwise.
   */
  async setUser(username: string, password: string, claims: Account['claims'] = {}, scopes?: readonly string[]): Promise<Account> {
    checkCredentials(username, password)
    let existing = await this.findByUsername(username)
    if (existing === undefined) {
      // a new name is claimed first-writer-wins: two processes adding it at once make one account
      const created = await this.createUser(username, password, claims, scopes)
      if (created !== undefined) return created
      existing = await this.findByUsername(username)
    }
    const account: StoredAccount = {
      id: existing?.id ?? randomUUID(),
      username,
      claims: { ...existing?.claims, ...claims },
      createdAt: existing?.createdAt ?? Date.now(),
      ...(existing?.upstream !== undefined ? { upstream: existing.upstream } : {}),
      ...(scopes !== undefined ? { scopes: [...new Set(scopes)] } : existing?.scopes !== undefined ? { scopes: existing.scopes } : {}),
      passwordHash: await hashPassword(password),
    }
    await this.#records.put(ACCOUNTS, account.id, account)
    await this.#records.put(USERNAMES, key(username), { id: account.id })
    return publicView(account)
  }

  /**
   * Creates `username` only when the name is free: first writer wins, so processes that create the
   * same account at once (nodes of one deployment starting together) end with one account, and
   * only the one that created it knows its password. Undefined when the name was taken.
   */
  async createUser(username: string, password: string, claims: Account['claims'] = {}, scopes?: readonly string[]): Promise<Account | undefined> {
    checkCredentials(username, password)
    const account: StoredAccount = {
      id: randomUUID(),
      username,
      claims: { ...claims },
      createdAt: Date.now(),
      ...(scopes !== undefined ? { scopes: [...new Set(scopes)] } : {}),
      passwordHash: await hashPassword(password),
    }
    if (!(await this.#records.create(USERNAMES, key(username), { id: account.id }))) return undefined
    await this.#records.put(ACCOUNTS, account.id, account)
    return publicView(account)
  }

  /**
   * Sets the scopes `username` may be granted; `undefined` goes back to the resources' default
   * scopes. Grants consented before keep only what the new list allows from the next authorization on.
   */
  async setScopes(username: string, scopes: readonly string[] | undefined): Promise<Account> {
    const stored = await this.#stored(username)
    const { scopes: _previous, ...rest } = stored
    const updated: StoredAccount = scopes === undefined ? rest : { ...rest, scopes: [...new Set(scopes)] }
    await this.#records.put(ACCOUNTS, updated.id, updated)
    return publicView(updated)
  }

  /** Stores an account that has no password (e.g. one linked to an upstream identity). */
  async putAccount(account: Account): Promise<void> {
    await this.#records.put(ACCOUNTS, account.id, account)
  }

  async findById(id: string): Promise<Account | undefined> {
    const stored = await this.#records.get<StoredAccount>(ACCOUNTS, id)
    return stored === undefined ? undefined : publicView(stored)
  }

  async findByUsername(username: string): Promise<Account | undefined> {
    const entry = await this.#records.get<{ id: string }>(USERNAMES, key(username))
    return entry === undefined ? undefined : this.findById(entry.id)
  }

  /** The account when the password matches; undefined otherwise (same work either way). */
  async authenticate(username: string, password: string): Promise<Account | undefined> {
    const entry = await this.#records.get<{ id: string }>(USERNAMES, key(username))
    const stored = entry === undefined ? undefined : await this.#records.get<StoredAccount>(ACCOUNTS, entry.id)
    if (stored?.passwordHash === undefined) {
      dummyHash ??= hashPassword('not a password of anyone')
      await verifyPassword(password, await dummyHash)
      return undefined
    }
    const matches = await verifyPassword(password, stored.passwordHash)
    return matches && stored.disabled !== true ? publicView(stored) : undefined
  }

  /** Disables (or enables again) `username`: a disabled account cannot log in. Ending its grants is the caller's part. */
  async setDisabled(username: string, disabled: boolean): Promise<Account> {
    const stored = await this.#stored(username)
    const { disabled: _previous, ...rest } = stored
    const updated: StoredAccount = disabled ? { ...rest, disabled: true } : rest
    await this.#records.put(ACCOUNTS, updated.id, updated)
    return publicView(updated)
  }

  /** Deletes `username` and frees the name. Ending its grants is the caller's part. */
  async delete(username: string): Promise<Account> {
    const stored = await this.#stored(username)
    await this.#records.delete(USERNAMES, key(stored.username))
    await this.#records.delete(ACCOUNTS, stored.id)
    return publicView(stored)
  }

  async #stored(username: string): Promise<StoredAccount> {
    const entry = await this.#records.get<{ id: string }>(USERNAMES, key(username))
    const stored = entry === undefined ? undefined : await this.#records.get<StoredAccount>(ACCOUNTS, entry.id)
    if (stored === undefined) throw new Error(`no account named ${username}`)
    return stored
  }

  async list(): Promise<Account[]> {
    return (await this.#records.list<StoredAccount>(ACCOUNTS)).map(publicView)
  }
}

function checkCredentials(username: string, password: string): void {
  if (!/^[\p{L}\p{N}._@+-]{1,64}$/u.test(username)) throw new Error('usernames are 1–64 letters, digits or . _ @ + -')
  if (password.length < 8) throw new Error('passwords need at least 8 characters')
}

function publicView(stored: StoredAccount): Account {
  const { passwordHash: _hash, ...account } = stored
  return account
}
