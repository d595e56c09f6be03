import type { RecordPage, RecordStore } from '../../../storage/types.js'

const CONSENTS = 'consents'
/** One collection per account: client id → its consent. */
const OF_ACCOUNT = 'consents-of-account:'
/** One collection per client: account id → its consent. */
const OF_CLIENT = 'consents-of-client:'
/** The marker that this store's indexes were built from the consents it held before they existed. */
const MARKERS = 'store-markers'
const INDEXED = 'consent-indexes-v1'

/** A remembered consent: the grant an account gave a client. */
export interface Consent {
  accountId: string
  clientId: string
  grantId: string
  /** Epoch ms. */
  at: number
}

/**
 * Remembers, per account and client, the grant the user consented to, so a later authorization
 * by the same client (in any browser session) is not asked again unless it wants more. Indexed by
 * account and by client (a collection each), so an account's or a client's grants are listed
 * without walking every consent; {@link ensureIndexed} builds the indexes once for a store that
 * held consents before them.
 */
export class ConsentStore {
  readonly #records: RecordStore

  constructor(records: RecordStore) {
    this.#records = records
  }

  async remember(accountId: string, clientId: string, grantId: string): Promise<void> {
    const consent: Consent = { accountId, clientId, grantId, at: Date.now() }
    await this.#records.put(CONSENTS, key(accountId, clientId), consent)
    await this.#index(consent)
  }

  /** Every remembered consent (records from before they named their account and client carry the grant only). */
  async list(): Promise<Array<{ grantId: string; accountId?: string; clientId?: string; at: number }>> {
    return this.#records.list(CONSENTS)
  }

  /** One page of every consent, for lists an administrator pages through (see RecordStore.scan). */
  async page(options: { cursor?: string; count: number }): Promise<RecordPage<Consent>> {
    const page = await this.#records.scan<Partial<Consent> & { grantId: string; at: number }>(CONSENTS, options)
    return { ...page, entries: page.entries.map(({ id, value }) => ({ id, value: withKey(id, value) })) }
  }

  /** One page of an account's consents (one per client). */
  async pageOfAccount(accountId: string, options: { cursor?: string; count: number }): Promise<RecordPage<Consent>> {
    return this.#records.scan<Consent>(`${OF_ACCOUNT}${accountId}`, options)
  }

  /** One page of a client's consents (one per account). */
  async pageOfClient(clientId: string, options: { cursor?: string; count: number }): Promise<RecordPage<Consent>> {
    return this.#records.scan<Consent>(`${OF_CLIENT}${clientId}`, options)
  }

  async grantIdFor(accountId: string, clientId: string): Promise<string | undefined> {
    return (await this.#records.get<{ grantId: string }>(CONSENTS, key(accountId, clientId)))?.grantId
  }

  async forget(accountId: string, clientId: string): Promise<void> {
    await this.#records.delete(CONSENTS, key(accountId, clientId))
    await this.#records.delete(`${OF_ACCOUNT}${accountId}`, clientId)
    await this.#records.delete(`${OF_CLIENT}${clientId}`, accountId)
  }

  /**
   * Builds the account and client indexes from the consents stored before they existed, once per
   * store (a marker record says it was done). Idempotent: nodes starting together may both build
   * them; a consent forgotten meanwhile leaves an index entry whose grant is gone, which lists skip.
   * Resolves with how many consents were indexed (0 when the marker was there).
   */
  async ensureIndexed(): Promise<number> {
    if ((await this.#records.get(MARKERS, INDEXED)) !== undefined) return 0
    let indexed = 0
    let cursor: string | undefined
    do {
      const page = await this.page({ count: 500, ...(cursor !== undefined ? { cursor } : {}) })
      for (const { value } of page.entries) {
        if (value.accountId === '' || value.clientId === '') continue
        await this.#index(value)
        indexed += 1
      }
      cursor = page.cursor
    } while (cursor !== undefined)
    await this.#records.create(MARKERS, INDEXED, { at: Date.now(), indexed })
    return indexed
  }

  async #index(consent: Consent): Promise<void> {
    await this.#records.put(`${OF_ACCOUNT}${consent.accountId}`, consent.clientId, consent)
    await this.#records.put(`${OF_CLIENT}${consent.clientId}`, consent.accountId, consent)
  }
}

const key = (accountId: string, clientId: string): string => JSON.stringify([accountId, clientId])

/** A consent with its account and client, which older records carry only in their key. */
function withKey(id: string, value: Partial<Consent> & { grantId: string; at: number }): Consent {
  let accountId = value.accountId
  let clientId = value.clientId
  if (accountId === undefined || clientId === undefined) {
    try {
      const parsed = JSON.parse(id) as unknown
      if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') [accountId, clientId] = parsed as [string, string]
    } catch {
      // not a key of ours
    }
  }
  return { grantId: value.grantId, at: value.at, accountId: accountId ?? '', clientId: clientId ?? '' }
}
