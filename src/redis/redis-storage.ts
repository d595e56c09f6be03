import type { AuthStorage, OidcAdapter, OidcPayload, RecordStore } from '../storage/types.js'
import type { RedisConnection } from './connection.js'
import { RedisScript } from './script.js'

/** The format of what this build writes; a value of another version is refused, never misread. */
const VERSION = '1'

/** Options of {@link createRedisStorage}. */
export interface RedisStorageOptions {
  connection: RedisConnection
  /** Clock in epoch ms for expiry checks and `consume`/`claim` stamps (tests inject one). */
  now?: () => number
}

/*
 * Layout, under the connection's prefix:
 *   oidc:<model>:r:<id>        hash  v (format), d (payload JSON), e (expiresAt, epoch ms), c:<field> (claims)
 *   oidc:<model>:uid:<uid>     string → id (same lifetime as the record)
 *   oidc:<model>:uc:<code>     string → id
 *   oidc:<model>:g:<grantId>   set of ids (lives as long as its longest member)
 *   rec:<collection>           hash  id → {"v":1,"value":…}
 * A record's Redis lifetime is its `expiresIn` (Redis reclaims the memory); `e` is checked against
 * the injected clock on every read, so an expired record is never served even before Redis drops it.
 * Claims live in fields of their own, so `claim` and `consume` never rewrite the payload JSON.
 */

// Drops the uid and user-code indexes that still point at `id` (and, unless kept, its grant set
// membership), read from the stored payload JSON `d`. Defined at the top of the scripts that use it.
const UNINDEX = `
local function unindex(base, id, d, keepGrant)
  if not d then return end
  local ok, p = pcall(cjson.decode, d)
  if not ok or type(p) ~= 'table' then return end
  if type(p.uid) == 'string' and redis.call('GET', base .. 'uid:' .. p.uid) == id then redis.call('DEL', base .. 'uid:' .. p.uid) end
  if type(p.userCode) == 'string' and redis.call('GET', base .. 'uc:' .. p.userCode) == id then redis.call('DEL', base .. 'uc:' .. p.userCode) end
  if type(p.grantId) == 'string' and p.grantId ~= keepGrant then redis.call('SREM', base .. 'g:' .. p.grantId, id) end
end
`

// KEYS[1] record; ARGV: base (key prefix of the model), id, data, expiresAt ('' = never), px ('' = no expiry), uid, userCode, grantId
const WRITE = `
unindex(ARGV[1], ARGV[2], redis.call('HGET', KEYS[1], 'd'), ARGV[8])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', '${VERSION}', 'd', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'e', ARGV[4]) end
local px = tonumber(ARGV[5])
local function index(key)
  if px then redis.call('SET', key, ARGV[2], 'PX', px) else redis.call('SET', key, ARGV[2]) end
end
if px then redis.call('PEXPIRE', KEYS[1], px) end
if ARGV[6] ~= '' then index(ARGV[1] .. 'uid:' .. ARGV[6]) end
if ARGV[7] ~= '' then index(ARGV[1] .. 'uc:' .. ARGV[7]) end
if ARGV[8] ~= '' then
  local g = ARGV[1] .. 'g:' .. ARGV[8]
  redis.call('SADD', g, ARGV[2])
  local ttl = redis.call('PTTL', g)
  if not px then redis.call('PERSIST', g) elseif ttl ~= -1 and ttl < px then redis.call('PEXPIRE', g, px) end
end
return 1
`
const UPSERT = `${UNINDEX}${WRITE}`

// KEYS[1] record; ARGV: those of UPSERT, then now (epoch ms). 0, writing nothing, when a live record
// holds the id (one of another format version counts as live: never overwritten unread).
const CREATE = `${UNINDEX}
if redis.call('EXISTS', KEYS[1]) == 1 then
  local e = redis.call('HGET', KEYS[1], 'e')
  if not e or tonumber(e) > tonumber(ARGV[9]) then return 0 end
end
${WRITE}`

// KEYS[1] record; ARGV: field, stamp, now. 1 when this call set the field.
const CLAIM = `
if redis.call('HGET', KEYS[1], 'v') ~= '${VERSION}' then return 0 end
local e = redis.call('HGET', KEYS[1], 'e')
if e and tonumber(e) <= tonumber(ARGV[3]) then return 0 end
if redis.call('HEXISTS', KEYS[1], 'c:' .. ARGV[1]) == 1 then return 0 end
local ok, p = pcall(cjson.decode, redis.call('HGET', KEYS[1], 'd'))
if ok and type(p) == 'table' and p[ARGV[1]] ~= nil then return 0 end
redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[2])
return 1
`

// KEYS[1] record; ARGV: base, id. Removes the record and its indexes.
const DESTROY = `${UNINDEX}
unindex(ARGV[1], ARGV[2], redis.call('HGET', KEYS[1], 'd'), nil)
return redis.call('DEL', KEYS[1])
`

// KEYS[1] a collection's hash; ARGV: id, encoded value, expected revision, format version. 1 when written.
const PUT_IF_REVISION = `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local ok, stored = pcall(cjson.decode, text)
if not ok or type(stored) ~= 'table' or tostring(stored.v) ~= ARGV[4] or type(stored.value) ~= 'table' then return 0 end
local rev = stored.value.rev
if rev == nil then rev = 0 end
if tonumber(rev) ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`

// KEYS[1] the grant's set; ARGV: base. Removes every record of the set, with their indexes.
const REVOKE = `${UNINDEX}
local ids = redis.call('SMEMBERS', KEYS[1])
for _, id in ipairs(ids) do
  local key = ARGV[1] .. 'r:' .. id
  -- the grant's set itself goes below
  unindex(ARGV[1], id, redis.call('HGET', key, 'd'), nil)
  redis.call('DEL', key)
end
redis.call('DEL', KEYS[1])
return #ids
`

const scripts = {
  upsert: new RedisScript(UPSERT),
  create: new RedisScript(CREATE),
  putIfRevision: new RedisScript(PUT_IF_REVISION),
  claim: new RedisScript(CLAIM),
  destroy: new RedisScript(DESTROY),
  revoke: new RedisScript(REVOKE),
}

class RedisModel implements OidcAdapter {
  readonly #redis: RedisConnection
  readonly #base: string
  readonly #now: () => number

  constructor(redis: RedisConnection, name: string, now: () => number) {
    this.#redis = redis
    this.#base = redis.key('oidc', name, '')
    this.#now = now
  }

  async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    await scripts.upsert.run(this.#redis, [this.#record(id)], this.#writeArgs(id, payload, expiresIn))
  }

  async create(id: string, payload: OidcPayload, expiresIn: number): Promise<boolean> {
    const stored = await scripts.create.run(this.#redis, [this.#record(id)], [...this.#writeArgs(id, payload, expiresIn), String(this.#now())])
    return stored === 1
  }

  #writeArgs(id: string, payload: OidcPayload, expiresIn: number | undefined): string[] {
    const expiresAt = expiresIn === undefined ? '' : String(this.#now() + expiresIn * 1000)
    const px = expiresIn === undefined ? '' : String(Math.max(1, Math.ceil(expiresIn * 1000)))
    const text = (value: unknown): string => (typeof value === 'string' ? value : '')
    return [this.#base, id, JSON.stringify(payload), expiresAt, px, text(payload.uid), text(payload.userCode), text(payload.grantId)]
  }

  async find(id: string): Promise<OidcPayload | undefined> {
    const fields = await this.#redis.run((client) => client.hgetall(this.#record(id)))
    return this.#decode(fields)
  }

  async findByUid(uid: string): Promise<OidcPayload | undefined> {
    return this.#findVia(`${this.#base}uid:${uid}`, (payload) => payload.uid === uid)
  }

  async findByUserCode(userCode: string): Promise<OidcPayload | undefined> {
    return this.#findVia(`${this.#base}uc:${userCode}`, (payload) => payload.userCode === userCode)
  }

  async consume(id: string): Promise<void> {
    // only a live record: HSET on a missing key would create a bare one
    if ((await this.find(id)) === undefined) return
    const stamp = String(Math.floor(this.#now() / 1000))
    await this.#redis.run((client) => client.hset(this.#record(id), 'c:consumed', stamp))
  }

  async claim(id: string, field: string): Promise<boolean> {
    const stamp = String(Math.floor(this.#now() / 1000))
    const won = await scripts.claim.run(this.#redis, [this.#record(id)], [field, stamp, String(this.#now())])
    return won === 1
  }

  async destroy(id: string): Promise<void> {
    await scripts.destroy.run(this.#redis, [this.#record(id)], [this.#base, id])
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await scripts.revoke.run(this.#redis, [`${this.#base}g:${grantId}`], [this.#base])
  }

  /** Every live record: a SCAN of the model's keys, for administration (never on a request's path). */
  async list(): Promise<Array<{ id: string; payload: OidcPayload }>> {
    const prefix = `${this.#base}r:`
    const keys = new Set<string>()
    for await (const key of this.#redis.keysStartingWith(prefix)) keys.add(key)
    const listed: Array<{ id: string; payload: OidcPayload }> = []
    for (const key of keys) {
      const payload = this.#decode(await this.#redis.run((client) => client.hgetall(key)))
      if (payload !== undefined) listed.push({ id: key.slice(prefix.length), payload })
    }
    return listed
  }

  #record(id: string): string {
    return `${this.#base}r:${id}`
  }

  async #findVia(indexKey: string, matches: (payload: OidcPayload) => boolean): Promise<OidcPayload | undefined> {
    const id = await this.#redis.run((client) => client.get(indexKey))
    if (id === null) return undefined
    const payload = await this.find(id)
    // an index left pointing at a record that changed since is no match
    return payload !== undefined && matches(payload) ? payload : undefined
  }

  #decode(fields: Record<string, string>): OidcPayload | undefined {
    if (fields['d'] === undefined) return undefined
    if (fields['v'] !== VERSION) throw new Error(`a stored record has format version ${JSON.stringify(fields['v'])}; this build reads version ${VERSION} only`)
    if (fields['e'] !== undefined && Number(fields['e']) <= this.#now()) return undefined
    const payload = JSON.parse(fields['d']) as OidcPayload
    for (const [name, value] of Object.entries(fields)) if (name.startsWith('c:')) payload[name.slice(2)] = Number(value)
    return payload
  }
}

function redisRecords(redis: RedisConnection): RecordStore {
  const key = (collection: string): string => redis.key('rec', collection)
  const encode = (value: object): string => JSON.stringify({ v: Number(VERSION), value })
  const decode = <T>(text: string): T => {
    const parsed = JSON.parse(text) as { v?: unknown; value?: T }
    if (String(parsed.v) !== VERSION) throw new Error(`a stored record has format version ${JSON.stringify(parsed.v)}; this build reads version ${VERSION} only`)
    return parsed.value as T
  }
  return {
    async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
      const text = await redis.run((client) => client.hget(key(collection), id))
      return text === null ? undefined : decode<T>(text)
    },
    async list<T extends object>(collection: string): Promise<T[]> {
      return (await redis.run((client) => client.hvals(key(collection)))).map((text) => decode<T>(text))
    },
    async put(collection: string, id: string, value: object): Promise<void> {
      await redis.run((client) => client.hset(key(collection), id, encode(value)))
    },
    async create(collection: string, id: string, value: object): Promise<boolean> {
      return (await redis.run((client) => client.hsetnx(key(collection), id, encode(value)))) === 1
    },
    async delete(collection: string, id: string): Promise<void> {
      await redis.run((client) => client.hdel(key(collection), id))
    },
    async putIfRevision(collection, id, value, revision) {
      return (await scripts.putIfRevision.run(redis, [key(collection)], [id, encode(value), revision, VERSION])) === 1
    },
    async scan<T extends object>(collection: string, options: { cursor?: string; count: number }) {
      const [next, flat] = await redis.run((client) => client.hscan(key(collection), options.cursor ?? '0', 'COUNT', options.count))
      const entries: Array<{ id: string; value: T }> = []
      for (let i = 0; i + 1 < flat.length; i += 2) entries.push({ id: flat[i]!, value: decode<T>(flat[i + 1]!) })
      return next === '0' ? { entries } : { entries, cursor: next }
    },
  }
}

/**
 * A storage backend on Redis, for several processes serving one deployment: oidc-provider's
 * models (expiry from `expiresIn`, uid / user-code / grant indexes, atomic `claim` and `create`, grant-wide
 * revocation in one script) and our record store (a hash per collection). Everything goes through
 * the connection: a Redis failure becomes StorageUnavailableError, never a half-written record
 * (each write is one command or one script). The connection belongs to the caller: `close` leaves it open.
 *
 * @example
 * const redis = await RedisConnection.connect({ url: 'redis://127.0.0.1:6379' })
 * const as = await createAuthorizationServer({ issuer, storage: createRedisStorage({ connection: redis }) })
 */
export function createRedisStorage(options: RedisStorageOptions): AuthStorage {
  const now = options.now ?? Date.now
  const models = new Map<string, RedisModel>()
  return {
    adapter(name) {
      let model = models.get(name)
      if (model === undefined) models.set(name, (model = new RedisModel(options.connection, name, now)))
      return model
    },
    records: redisRecords(options.connection),
    async close() {},
  }
}
