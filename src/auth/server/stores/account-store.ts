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
  /** `admin`: may be granted the admin API's scope (absent: an ordinary account). */
  role?: AccountRole
  /** Revision, one more with every write: what an administrator's `If-Match` names (absent: 0). */
  rev?: number
  /** Epoch ms of the last write. */
  updatedAt?: number
  /**
   * Epoch seconds: sign-ins before it no longer count (a password change ends the account's other
   * sessions). Absent: every sign-in counts.
   */
  sessionsNotBefore?: number
}

/** What an account may do beyond using resources. */
export type AccountRole = 'admin'

/** The changes an administrator makes to an account in one write ({@link AccountStore.update}). */
export interface AccountChange {
  claims?: Account['claims']
  /** `null`: back to the resources' default scopes. */
  scopes?: readonly string[] | null
  disabled?: boolean
  /** `null`: an ordinary account. */
  role?: AccountRole | null
  password?: string
  sessionsNotBefore?: number
}

interface StoredAccount extends Account {
  passwordHash?: string
}

const ACCOUNTS = 'accounts'
const USERNAMES = 'account-usernames'
/** The ids of administrators, so "is there one" costs a small read whatever the number of accounts. */
const ADMINS = 'account-admins'

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
  async setUser(username: string, password: string, claims: Account['claims'] = {}, scopes?: readonly string[], role?: AccountRole): Promise<Account> {
    checkCredentials(username, password)
    let existing = await this.#storedOrUndefined(username)
    if (existing === undefined) {
      // a new name is claimed first-writer-wins: two processes adding it at once make one account
      const created = await this.createUser(username, password, claims, scopes, role)
      if (created !== undefined) return created
      existing = await this.#storedOrUndefined(username)
    }
    const { passwordHash: _previous, ...kept } = existing ?? { id: randomUUID(), username, claims: {}, createdAt: Date.now() }
    const account: StoredAccount = {
      ...kept,
      username,
      claims: { ...kept.claims, ...claims },
      ...(scopes !== undefined ? { scopes: [...new Set(scopes)] } : {}),
      ...(role !== undefined ? { role } : {}),
      passwordHash: await hashPassword(password),
    }
    await this.#put(account)
    await this.#records.put(USERNAMES, key(username), { id: account.id })
    return publicView(account)
  }

  /**
   * Creates `username` only when the name is free: first writer wins, so processes that create the
   * same account at once (nodes of one deployment starting together) end with one account, and
   * only the one that created it knows its password. Undefined when the name was taken.
   */
  async createUser(username: string, password: string | undefined, claims: Account['claims'] = {}, scopes?: readonly string[], role?: AccountRole): Promise<Account | undefined> {
    checkUsername(username)
    if (password !== undefined) checkPassword(password)
    const account: StoredAccount = {
      id: randomUUID(),
      username,
      claims: { ...claims },
      createdAt: Date.now(),
      ...(scopes !== undefined ? { scopes: [...new Set(scopes)] } : {}),
      ...(role !== undefined ? { role } : {}),
      ...(password !== undefined ? { passwordHash: await hashPassword(password) } : {}),
    }
    if (!(await this.#records.create(USERNAMES, key(username), { id: account.id }))) return undefined
    await this.#put(account)
    return publicView(account)
  }

  /**
   * Applies an administrator's changes to `username` when it is still at revision `rev` (what
   * the administrator read; undefined: whatever it is now), atomically on every backend: of two
   * administrators saving one account at once, one wins and the other gets `undefined` (read it
   * again). Throws when there is no such account.
   */
  async update(username: string, change: AccountChange, rev?: number): Promise<Account | undefined> {
    if (change.password !== undefined) checkPassword(change.password)
    const passwordHash = change.password === undefined ? undefined : await hashPassword(change.password)
    // without a revision to hold to, a write that lost a race is made again on what won
    for (let round = 0; round < (rev === undefined ? 5 : 1); round++) {
      const written = await this.#updateOnce(username, change, passwordHash, rev)
      if (written !== undefined) return written
    }
    return undefined
  }

  async #updateOnce(username: string, change: AccountChange, passwordHash: string | undefined, rev: number | undefined): Promise<Account | undefined> {
    const stored = await this.#stored(username)
    if (rev !== undefined && (stored.rev ?? 0) !== rev) return undefined
    const { scopes: _scopes, disabled: _disabled, role: _role, ...rest } = stored
    const scopes = change.scopes === undefined ? stored.scopes : (change.scopes ?? undefined)
    const disabled = change.disabled ?? stored.disabled
    const role = change.role === undefined ? stored.role : (change.role ?? undefined)
    const updated: StoredAccount = {
      ...rest,
      ...(change.claims !== undefined ? { claims: { ...change.claims } } : {}),
      ...(scopes !== undefined ? { scopes: [...new Set(scopes)] } : {}),
      ...(disabled === true ? { disabled: true } : {}),
      ...(role !== undefined ? { role } : {}),
      ...(passwordHash !== undefined ? { passwordHash } : {}),
      ...(change.sessionsNotBefore !== undefined ? { sessionsNotBefore: change.sessionsNotBefore } : {}),
      rev: (stored.rev ?? 0) + 1,
      updatedAt: Date.now(),
    }
    if (!(await this.#records.putIfRevision(ACCOUNTS, stored.id, updated, stored.rev ?? 0))) return undefined
    await this.#indexRole(updated)
    return publicView(updated)
  }

  /** Makes `username` an administrator, or (`undefined`) an ordinary account again. */
  async setRole(username: string, role: AccountRole | undefined): Promise<Account> {
    const stored = await this.#stored(username)
    const { role: _previous, ...rest } = stored
    const updated: StoredAccount = role === undefined ? rest : { ...rest, role }
    await this.#put(updated)
    return publicView(updated)
  }

  /** The ids of the administrators: a small read, whatever the number of accounts. */
  async administratorIds(): Promise<string[]> {
    return (await this.#records.list<{ id: string }>(ADMINS)).map((entry) => entry.id)
  }

  /**
   * Sets the scopes `username` may be granted; `undefined` goes back to the resources' default
   * scopes. Grants consented before keep only what the new list allows from the next authorization on.
   */
  async setScopes(username: string, scopes: readonly string[] | undefined): Promise<Account> {
    const stored = await this.#stored(username)
    const { scopes: _previous, ...rest } = stored
    const updated: StoredAccount = scopes === undefined ? rest : { ...rest, scopes: [...new Set(scopes)] }
    await this.#put(updated)
    return publicView(updated)
  }

  /** Stores an account that has no password (e.g. one linked to an upstream identity). */
  async putAccount(account: Account): Promise<void> {
    const previous = await this.#records.get<StoredAccount>(ACCOUNTS, account.id)
    await this.#put({ ...account, ...(previous?.rev !== undefined ? { rev: previous.rev } : {}) })
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
    await this.#put(updated)
    return publicView(updated)
  }

  /** Deletes `username` and frees the name. Ending its grants is the caller's part. */
  async delete(username: string): Promise<Account> {
    const stored = await this.#stored(username)
    await this.#records.delete(USERNAMES, key(stored.username))
    await this.#records.delete(ACCOUNTS, stored.id)
    await this.#records.delete(ADMINS, stored.id)
    return publicView(stored)
  }

  /** Whether `password` is this account's (same work whether or not it has one). */
  async checkPassword(accountId: string, password: string): Promise<boolean> {
    const stored = await this.#records.get<StoredAccount>(ACCOUNTS, accountId)
    if (stored?.passwordHash === undefined) {
      dummyHash ??= hashPassword('not a password of anyone')
      await verifyPassword(password, await dummyHash)
      return false
    }
    return verifyPassword(password, stored.passwordHash)
  }

  /** One page of the accounts (see RecordStore.scan): an administrator's list. */
  async page(options: { cursor?: string; count: number }): Promise<{ accounts: Account[]; cursor?: string }> {
    const page = await this.#records.scan<StoredAccount>(ACCOUNTS, options)
    return { accounts: page.entries.map((entry) => publicView(entry.value)), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) }
  }

  /** Every write of an account: one more revision, and the administrators' index kept with the role. */
  async #put(account: StoredAccount): Promise<void> {
    const updated: StoredAccount = { ...account, rev: (account.rev ?? 0) + 1, updatedAt: Date.now() }
    await this.#records.put(ACCOUNTS, updated.id, updated)
    await this.#indexRole(updated)
  }

  async #indexRole(account: StoredAccount): Promise<void> {
    if (account.role === 'admin') await this.#records.put(ADMINS, account.id, { id: account.id })
    else await this.#records.delete(ADMINS, account.id)
  }

  async #storedOrUndefined(username: string): Promise<StoredAccount | undefined> {
    const entry = await this.#records.get<{ id: string }>(USERNAMES, key(username))
    return entry === undefined ? undefined : this.#records.get<StoredAccount>(ACCOUNTS, entry.id)
  }

  async #stored(username: string): Promise<StoredAccount> {
    const stored = await this.#storedOrUndefined(username)
    if (stored === undefined) throw new UnknownAccountError(username)
    return stored
  }

  async list(): Promise<Account[]> {
    return (await this.#records.list<StoredAccount>(ACCOUNTS)).map(publicView)
  }
}

function checkCredentials(username: string, password: string): void {
  checkUsername(username)
  checkPassword(password)
}

function checkUsername(username: string): void {
  if (!/^[\p{L}\p{N}._@+-]{1,64}$/u.test(username)) throw new InvalidAccountError('usernames are 1–64 letters, digits or . _ @ + -')
}

function checkPassword(password: string): void {
  const refused = passwordRefusal(password)
  if (refused !== undefined) throw new InvalidAccountError(refused)
}

/** Why the store would refuse `password` (its length rule), or undefined: for a form to ask before it spends anything. */
export function passwordRefusal(password: string): string | undefined {
  if (password.length < 8) return 'passwords need at least 8 characters'
  if (password.length > 1024) return 'passwords are at most 1024 characters'
  return undefined
}

/** No account has the username given. */
export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError'
  constructor(username: string) {
    super(`no account named ${username}`)
  }
}

/** A username or password the store does not accept (the message says which rule). */
export class InvalidAccountError extends Error {
  override name = 'InvalidAccountError'
}

function publicView(stored: StoredAccount): Account {
  const { passwordHash: _hash, ...account } = stored
  return account
}
