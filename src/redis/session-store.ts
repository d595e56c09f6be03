import { createHash } from 'node:crypto'
import { defaults } from '../config/defaults.js'
import type { RedisConnection } from './connection.js'
import { RedisScript } from './script.js'
import type { AdmitVerdict, SessionState, SessionStore, SharedSessionLimits } from '../sessions/session-store.js'

export interface RedisSessionStoreOptions {
  /** A session nobody used for this long (ms) is gone; every request (and every open stream) refreshes it. */
  idleMs?: number
  now?: () => number
}

/** Stored values carry their format's version, so a later release can read or refuse old ones. */
const FORMAT = 1

/** Session ids we hand out are UUIDs; anything much longer is not worth a round trip. */
const MAX_ID_LENGTH = 128

// A session is a hash: `s` its state (JSON), `o` its principal's key suffix. Two sorted sets by
// last use count the sessions: all of them, and each principal's (the caps of every process).

/** HMGET + refresh the hash, and the session's last use in both sets; false when it is gone. */
const TOUCH = new RedisScript(`
local found = redis.call('HMGET', KEYS[1], 's', 'o')
if not found[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', ARGV[1], ARGV[3])
if found[2] then
  local own = ARGV[4] .. found[2]
  redis.call('ZADD', own, 'XX', ARGV[1], ARGV[3])
  redis.call('PEXPIRE', own, ARGV[2])
end
return found[1]`)

const SET = new RedisScript(`
redis.call('HSET', KEYS[1], 's', ARGV[1], 'o', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1`)

const DELETE = new RedisScript(`
local own = redis.call('HGET', KEYS[1], 'o')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if own then redis.call('ZREM', ARGV[2] .. own, ARGV[1]) end
return 1`)

/**
 * Forget sessions unused for the idle time, then make room for one more of this principal: over
 * a cap, the least recently used session (of the principal, then of anyone) goes if it has been
 * idle since ARGV[6]; else the refusal names the cap. The new session is reserved (its hash holds
 * the principal until its state is saved).
 */
const ADMIT = new RedisScript(`
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
local evicted = {'ok'}
local function evict(victim)
  local key = ARGV[8] .. victim
  local own = redis.call('HGET', key, 'o')
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[1], victim)
  if own then redis.call('ZREM', ARGV[9] .. own, victim) end
  evicted[#evicted + 1] = victim
end
local function makeRoom(set, max, reason)
  if redis.call('ZCARD', set) < max then return nil end
  local oldest = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if #oldest == 0 or tonumber(oldest[2]) >= tonumber(ARGV[6]) then return reason end
  evict(oldest[1])
  return nil
end
local refused = makeRoom(KEYS[2], tonumber(ARGV[5]), 'principal') or makeRoom(KEYS[1], tonumber(ARGV[4]), 'total')
if refused then return {refused} end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('HSET', KEYS[3], 'o', ARGV[7])
redis.call('PEXPIRE', KEYS[3], ttl)
return evicted`)

/**
 * The session store of a deployment of several processes behind one load balancer: each session's
 * state in Redis, expiring when unused for `idleMs`, and the session caps counted across every
 * process (an attacker gains nothing by spreading `initialize` calls over the nodes).
 *
 * Keys (under the connection's prefix): `mcp:session:<id>` (hash), `mcp:sessions` (sorted set of
 * all sessions by last use), `mcp:sessions:principal:<sha-256 of the principal>` (the same, per principal).
 *
 * @example
 * const redis = await RedisConnection.connect({ url: 'redis://127.0.0.1:6379' })
 * new StreamableHttpHandler(server, { allowedHosts, ...redisMcpOptions(redis) })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisConnection
  readonly #idleMs: number
  readonly #now: () => number
  readonly #all: string
  readonly #sessionPrefix: string
  readonly #principalPrefix: string

  constructor(connection: RedisConnection, options: RedisSessionStoreOptions = {}) {
    this.#redis = connection
    this.#idleMs = options.idleMs ?? defaults.streamableHttp.sessionIdleMs
    this.#now = options.now ?? Date.now
    this.#all = connection.key('mcp', 'sessions')
    this.#sessionPrefix = connection.key('mcp', 'session', '')
    this.#principalPrefix = connection.key('mcp', 'sessions', 'principal', '')
  }

  async get(id: string): Promise<SessionState | undefined> {
    if (id.length > MAX_ID_LENGTH) return undefined
    return parse(await this.#redis.run((client) => client.hget(this.#sessionPrefix + id, 's')))
  }

  get reachable(): boolean {
    return this.#redis.connected
  }

  async touch(id: string): Promise<SessionState | undefined> {
    if (id.length > MAX_ID_LENGTH) return undefined
    const found = await TOUCH.run(this.#redis, [this.#sessionPrefix + id, this.#all], [this.#now(), this.#idleMs, id, this.#principalPrefix])
    return parse(found)
  }

  async set(state: SessionState): Promise<void> {
    const principal = principalKey(state.owner)
    await SET.run(
      this.#redis,
      [this.#sessionPrefix + state.id, this.#all, this.#principalPrefix + principal],
      [JSON.stringify({ v: FORMAT, ...state }), principal, this.#now(), this.#idleMs, state.id],
    )
  }

  async delete(id: string): Promise<void> {
    await DELETE.run(this.#redis, [this.#sessionPrefix + id, this.#all], [id, this.#principalPrefix])
  }

  async admit(id: string, owner: string, limits: SharedSessionLimits): Promise<AdmitVerdict> {
    const principal = principalKey(owner)
    const answer = (await ADMIT.run(
      this.#redis,
      [this.#all, this.#principalPrefix + principal, this.#sessionPrefix + id],
      [id, this.#now(), this.#idleMs, limits.maxSessions, limits.maxSessionsPerPrincipal, limits.idleBefore, principal, this.#sessionPrefix, this.#principalPrefix],
    )) as string[]
    const [verdict, ...evicted] = answer
    if (verdict === 'ok') return { admitted: true, evicted }
    return { admitted: false, reason: verdict === 'principal' ? 'principal' : 'total' }
  }
}

/** A principal names its sessions' set by a digest: the principal string holds issuer, subject and client. */
function principalKey(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 32)
}

function parse(stored: unknown): SessionState | undefined {
  if (typeof stored !== 'string') return undefined
  const { v, ...state } = JSON.parse(stored) as SessionState & { v?: number }
  // a format this release does not know: the session is as good as gone (the client starts anew)
  return v === FORMAT ? state : undefined
}
