import type { RecordStore } from '../../../storage/types.js'

const CONSENTS = 'consents'

/**
 * Remembers, per account and client, the grant the user consented to, so a later authorization
 * by the same client (in any browser session) is not asked again unless it wants more.
 */
export class ConsentStore {
  readonly #records: RecordStore

  constructor(records: RecordStore) {
    this.#records = records
  }

  async remember(accountId: string, clientId: string, grantId: string): Promise<void> {
    await this.#records.put(CONSENTS, key(accountId, clientId), { accountId, clientId, grantId, at: Date.now() })
  }

  /** Every remembered consent (records from before they named their account and client carry the grant only). */
  async list(): Promise<Array<{ grantId: string; accountId?: string; clientId?: string; at: number }>> {
    return this.#records.list(CONSENTS)
  }

  async grantIdFor(accountId: string, clientId: string): Promise<string | undefined> {
    return (await this.#records.get<{ grantId: string }>(CONSENTS, key(accountId, clientId)))?.grantId
  }

  async forget(accountId: string, clientId: string): Promise<void> {
    await this.#records.delete(CONSENTS, key(accountId, clientId))
  }
}

const key = (accountId: string, clientId: string): string => JSON.stringify([accountId, clientId])
