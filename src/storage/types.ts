/**
 * The storage seam of the authorization server. oidc-provider persists its models through an
 * {@link OidcAdapter}; our own records (local accounts, pre-registered client secrets' metadata,
 * upstream links) go through {@link RecordStore}. The embedded default is lowdb (a JSON file);
 * another backend (Redis, SQL) implements the same two interfaces.
 */

/** What oidc-provider hands an adapter: a JSON object; `grantId`, `uid`, `userCode` are indexed. */
export type OidcPayload = Record<string, unknown> & {
  grantId?: string
  uid?: string
  userCode?: string
  consumed?: number
}

/**
 * oidc-provider's adapter contract, one instance per model name ("Client", "Grant",
 * "RefreshToken", "Session", "Interaction", "AuthorizationCode", …).
 * @see https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js
 */
export interface OidcAdapter {
  /** Insert or replace; `expiresIn` in seconds, absent for records that never expire (Client). */
  upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void>
  /** The payload, or undefined when missing or expired. */
  find(id: string): Promise<OidcPayload | undefined>
  findByUserCode(userCode: string): Promise<OidcPayload | undefined>
  findByUid(uid: string): Promise<OidcPayload | undefined>
  /** Marks the record consumed (sets `consumed` to the epoch second). */
  consume(id: string): Promise<void>
  /**
   * Atomically sets `field` to the epoch second when the record is live and the field is absent;
   * true only for the one call that set it. Where two processes race to use a one-time value (a
   * refresh token redeemed twice at once), exactly one wins, whichever node each landed on.
   */
  claim(id: string, field: string): Promise<boolean>
  /**
   * Atomically stores a record under a free id, expiring in `expiresIn` seconds like an upserted
   * one: true only for the one call that stored it. A live record under the id wins (nothing is
   * written); an expired one is replaced. Single-use values (a JWT's `jti`, a DPoP proof) are
   * claimed this way, so N concurrent uses on any number of processes give exactly one success,
   * and the claims go away with their expiry instead of piling up.
   */
  create(id: string, payload: OidcPayload, expiresIn: number): Promise<boolean>
  destroy(id: string): Promise<void>
  /** Removes every record of this model carrying `grantId`. */
  revokeByGrantId(grantId: string): Promise<void>
  /** Every live record of this model, for administration of small models (Client, Grant). */
  list(): Promise<Array<{ id: string; payload: OidcPayload }>>
  /**
   * Optional, for backends that hold their records in this process: an opaque object that stays
   * the same while the record is live and unchanged, and is replaced by every write to it
   * (undefined when there is no live record). It lets a reader keep what it built from a record
   * (oidc-provider's Client) without reading and comparing the record again. Synchronous; a
   * backend that cannot tell without a round trip leaves it out.
   */
  revision?(id: string): object | undefined
}

/** A plain record collection for our own data (accounts, links). Values are JSON objects. */
export interface RecordStore {
  get<T extends object>(collection: string, id: string): Promise<T | undefined>
  /** Every record of a collection (small collections only: accounts, clients). */
  list<T extends object>(collection: string): Promise<T[]>
  /** Resolves once the write is durable on disk. */
  put(collection: string, id: string, value: object): Promise<void>
  /** Stores `value` only when the id is free; true when this call stored it (first writer wins). */
  create(collection: string, id: string, value: object): Promise<boolean>
  delete(collection: string, id: string): Promise<void>
  /**
   * Stores `value` only when the stored record's `rev` field equals `revision` (a record without
   * one counts as 0), atomically: of two writers that read the same revision (two administrators
   * saving one account at once, on two nodes), exactly one wins. The caller sets `value.rev` (the
   * next revision). False when the record is missing or at another revision: nothing is written.
   */
  putIfRevision<T extends { rev?: number }>(collection: string, id: string, value: T, revision: number): Promise<boolean>
  /**
   * One page of a collection, for lists an administrator pages through: about `count` records
   * from `cursor` (none: the start) and the cursor of the next page (absent at the end). The
   * cost of a page does not grow with the collection; records written during a walk may be
   * missed or seen twice, as with Redis's HSCAN.
   */
  scan<T extends object>(collection: string, options: { cursor?: string; count: number }): Promise<RecordPage<T>>
}

/** What {@link RecordStore.scan} returns. */
export interface RecordPage<T> {
  entries: Array<{ id: string; value: T }>
  /** Absent on the last page. */
  cursor?: string
}

/** A storage backend: oidc-provider's adapters plus our record store. */
export interface AuthStorage {
  /** Passed to oidc-provider as `adapter`: returns the adapter for one model name. */
  adapter(name: string): OidcAdapter
  records: RecordStore
  /** Flushes pending writes and stops timers. */
  close(): Promise<void>
  /**
   * Everything the store holds, for a migration to another backend (`migrateStorage`): each live
   * model record with its expiry, each record of each collection. Optional: the embedded lowdb
   * store has it; a backend that is only ever a migration's destination need not.
   */
  entries?(): AsyncIterable<StoredEntry>
  /** Optional: what the backend holds, for `mcp-auth status` (the embedded store has it). */
  stats?(): StorageStats
}

/** What a backend says about itself: record counts per model and per collection, and its own figures. */
export interface StorageStats {
  backend: string
  models: Record<string, number>
  collections: Record<string, number>
}

/** One item of {@link AuthStorage.entries}. */
export type StoredEntry = { kind: 'model'; model: string; id: string; payload: OidcPayload; expiresAt?: number } | { kind: 'record'; collection: string; id: string; value: object }
