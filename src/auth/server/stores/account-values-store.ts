import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { defaults } from '../../../config/defaults.js'
import type { AuthStorage, OidcAdapter, RecordStore } from '../../../storage/types.js'
import { SecretBox } from '../keys/secret-box.js'
import { AccountValueError } from './account-value-error.js'

const VALUES = 'account-values'
/** oidc-provider-style model holding one short-lived lease per subject being written (its `create` is atomic on every backend). */
const LEASES = 'AccountValuesLease'
/** The purpose the values' key is derived for from the data key (HKDF label): no other sealed data shares it. */
export const ACCOUNT_VALUES_KEY_PURPOSE = 'mcp-auth account values'

/** Names the gateway sets itself. */
const RESERVED_PREFIX = 'MCP_AUTH_'
/** Names whose value changes which program runs, or what it loads: a per-account value must never pick the child's code. */
const PROGRAM_NAMES = new Set(['PATH', 'HOME', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH'])
const PROGRAM_PREFIX = 'DYLD_'
const NAME = /^[A-Z_][A-Z0-9_]*$/

interface StoredValues {
  subject: string
  /** Each value sealed for this subject and name. */
  values: Record<string, string>
  /** When each name was last set (epoch ms). */
  setAt: Record<string, number>
  updatedAt: number
}

/** A name an account holds and when it was set: what `mcp-auth user-env list` shows (never the value). */
export interface AccountValueName {
  name: string
  setAt: number
}

/**
 * Per-account values an operator sets (`mcp-auth user-env`), handed to the gateway's children of
 * that account as environment variables: an API key per user. Keyed by subject (the token's
 * `sub`), so accounts of another authorization server have them too. One record per subject, each
 * value sealed (AES-256-GCM, a key of its own derived from the data key) and bound to its subject
 * and name: a sealed value copied to another account or name does not open. A write takes a
 * short lease on the subject first, so two writers at once (two hosts on one Redis) both land.
 *
 * @example
 * const values = new AccountValuesStore(storage, as.deriveKey(ACCOUNT_VALUES_KEY_PURPOSE))
 * await values.set(account.id, 'GITHUB_TOKEN', token)
 * await values.valuesFor(account.id) // { GITHUB_TOKEN: '…' }
 */
export class AccountValuesStore {
  readonly #records: RecordStore
  readonly #leases: OidcAdapter
  readonly #box: SecretBox
  readonly #now: () => number

  constructor(storage: Pick<AuthStorage, 'records' | 'adapter'>, key: Buffer, options: { now?: () => number } = {}) {
    this.#records = storage.records
    this.#leases = storage.adapter(LEASES)
    this.#box = new SecretBox(key)
    this.#now = options.now ?? Date.now
  }

  /** Throws {@link AccountValueError} when `name` cannot be set (before anything else is asked of an operator). */
  static checkName(name: string): void {
    checkName(name)
  }

  /** Sets `name` to `value` for `subject` (replacing what it held). */
  async set(subject: string, name: string, value: string): Promise<void> {
    checkSubject(subject)
    checkName(name)
    checkValue(name, value)
    await this.#update(subject, (stored) => {
      const limit = defaults.accountValues.maxNamesPerSubject
      if (!(name in stored.values) && Object.keys(stored.values).length >= limit) {
        throw new AccountValueError('too_many_names', `${subject} holds ${limit} names already (the most one account may hold): unset one first`)
      }
      stored.values[name] = this.#box.seal(value, context(subject, name))
      stored.setAt[name] = this.#now()
      return true
    })
  }

  /** Removes `name` from `subject`; false when it held no such name. */
  async unset(subject: string, name: string): Promise<boolean> {
    checkSubject(subject)
    checkName(name)
    let removed = false
    await this.#update(subject, (stored) => {
      removed = name in stored.values
      delete stored.values[name]
      delete stored.setAt[name]
      return removed
    })
    return removed
  }

  /** The names `subject` holds and when each was set, sorted by name; never the values. */
  async names(subject: string): Promise<AccountValueName[]> {
    const stored = await this.#records.get<StoredValues>(VALUES, subject)
    if (stored === undefined) return []
    return Object.keys(stored.values)
      .sort()
      .map((name) => ({ name, setAt: stored.setAt[name] ?? stored.updatedAt }))
  }

  /** Every value set for `subject`, opened; {} when none. A value that does not open is an error, never left out. */
  async valuesFor(subject: string): Promise<Readonly<Record<string, string>>> {
    const stored = await this.#records.get<StoredValues>(VALUES, subject)
    const opened: Record<string, string> = {}
    for (const [name, sealed] of Object.entries(stored?.values ?? {})) {
      try {
        opened[name] = this.#box.open(sealed, context(subject, name))
      } catch (error) {
        throw new AccountValueError(
          'unreadable',
          `the value ${name} of ${subject} does not open with this data key (secrets.json replaced, or the value was moved from another account)`,
          {
            cause: error,
          },
        )
      }
    }
    return opened
  }

  /** Removes every value of `subject` (its account was deleted). */
  async deleteSubject(subject: string): Promise<void> {
    await this.#records.delete(VALUES, subject)
  }

  /** Read, change and write the subject's record under its lease; `change` returns false when nothing changed. */
  async #update(subject: string, change: (stored: StoredValues) => boolean): Promise<void> {
    const release = await this.#lease(subject)
    try {
      const stored = (await this.#records.get<StoredValues>(VALUES, subject)) ?? { subject, values: {}, setAt: {}, updatedAt: 0 }
      if (!change(stored)) return
      if (Object.keys(stored.values).length === 0) await this.#records.delete(VALUES, subject)
      else await this.#records.put(VALUES, subject, { ...stored, updatedAt: this.#now() })
    } finally {
      await release()
    }
  }

  async #lease(subject: string): Promise<() => Promise<void>> {
    const holder = randomUUID()
    const { writeLeaseSeconds, writeWaitMs } = defaults.accountValues
    const until = Date.now() + writeWaitMs
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      if (await this.#leases.create(subject, { holder }, writeLeaseSeconds)) break
      if (Date.now() >= until) throw new AccountValueError('busy', `another writer holds the values of ${subject}: try again`)
      await sleep(pause + Math.floor(Math.random() * pause))
    }
    return async () => {
      // only our own lease: one that expired and went to another writer stays theirs
      if ((await this.#leases.find(subject))?.['holder'] === holder) await this.#leases.destroy(subject)
    }
  }
}

/** Binds a sealed value to its subject and name. */
function context(subject: string, name: string): string {
  return JSON.stringify(['account-value', subject, name])
}

function checkSubject(subject: string): void {
  if (subject === '') throw new AccountValueError('invalid_subject', 'the subject is empty')
}

/** Names are environment variables' names as written: lower case is refused, not upper-cased behind the operator's back. */
function checkName(name: string): void {
  if (name.length > defaults.accountValues.maxNameLength) {
    throw new AccountValueError('invalid_name', `${name.slice(0, 32)}… is longer than ${defaults.accountValues.maxNameLength} characters`)
  }
  if (!NAME.test(name)) {
    const upper = name.toUpperCase()
    const hint = upper !== name && NAME.test(upper) ? `: names are upper case (${upper})` : ''
    throw new AccountValueError('invalid_name', `${JSON.stringify(name)} is not an environment variable name (A-Z, 0-9 and _, not starting with a digit)${hint}`)
  }
  if (name.startsWith(RESERVED_PREFIX)) throw new AccountValueError('reserved_name', `${name} is reserved: the gateway sets the ${RESERVED_PREFIX}* names itself`)
  if (PROGRAM_NAMES.has(name) || name.startsWith(PROGRAM_PREFIX)) {
    throw new AccountValueError('reserved_name', `${name} is refused: its value would change which program a child runs or what it loads`)
  }
}

function checkValue(name: string, value: string): void {
  if (value === '') throw new AccountValueError('invalid_value', `the value of ${name} is empty (unset removes a name)`)
  if (value.includes('\0')) throw new AccountValueError('invalid_value', `the value of ${name} holds a NUL character, which no environment variable can`)
  const limit = defaults.accountValues.maxValueBytes
  if (Buffer.byteLength(value, 'utf8') > limit) throw new AccountValueError('invalid_value', `the value of ${name} is larger than ${limit} bytes`)
}
