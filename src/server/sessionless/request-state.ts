import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { ErrorCode, JsonRpcError } from '../../jsonrpc/index.js'

/** What a sealed `requestState` carries between input rounds. */
export interface InputRoundState {
  /** Which request it belongs to: method, name or URI, and a digest of the other params. */
  request: string
  /** Who it was issued to (a digest of the principal; '' without authentication). */
  principal: string
  /** Epoch ms after which it is refused. */
  expiresAt: number
  /** Rounds so far. */
  round: number
  /** Keys asked in the round this state ends: only answers to these are taken from the retry. */
  asked: string[]
  /** Answers gathered in earlier rounds, by key. */
  answers: Record<string, unknown>
}

const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * Seals and opens MRTR `requestState` with AES-256-GCM: the client carries it but can neither
 * read nor alter it, and state from another request, another principal or an earlier time is
 * refused. The key is the server's (random per process unless given: give the same key to every
 * process behind one load balancer).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#security-considerations
 */
export class RequestStateSealer {
  readonly #key: Buffer
  readonly #maxBytes: number

  constructor(options: { key?: Uint8Array | undefined; maxBytes: number }) {
    if (options.key !== undefined && options.key.byteLength !== 32) throw new TypeError('requestStateKey must be 32 bytes')
    this.#key = options.key === undefined ? randomBytes(32) : Buffer.from(options.key)
    this.#maxBytes = options.maxBytes
  }

  seal(state: InputRoundState): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()])
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
    if (sealed.length > this.#maxBytes) {
      throw new JsonRpcError(ErrorCode.InternalError, `Internal error: the answers gathered for this request exceed ${this.#maxBytes} bytes of requestState`)
    }
    return sealed
  }

  /** The state inside `sealed`, checked against the request it came back with; -32602 otherwise. */
  open(sealed: unknown, expected: { request: string; principal: string; now: number }): InputRoundState {
    if (typeof sealed !== 'string' || sealed.length > this.#maxBytes) throw refused('requestState is not one this server issued')
    const raw = Buffer.from(sealed, 'base64url')
    if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== sealed) throw refused('requestState is not one this server issued')
    let state: InputRoundState
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES))
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
      state = JSON.parse(plain.toString('utf8')) as InputRoundState
    } catch {
      throw refused('requestState failed its integrity check')
    }
    if (state.request !== expected.request) throw refused('requestState belongs to another request')
    if (state.principal !== expected.principal) throw refused('requestState was issued to another principal')
    if (!(state.expiresAt > expected.now)) throw refused('requestState has expired: start the request again')
    return state
  }
}

/** A stable digest of a request's identity: method, and its params without the MRTR fields. */
export function requestDigest(method: string, params: Record<string, unknown>): string {
  const hash = createHash('sha256').update(method).update('\0')
  hash.update(stableJson(params, new Set(['_meta', 'inputResponses', 'requestState'])))
  return hash.digest('base64url')
}

/** A digest of who asked (never the token itself). */
export function principalDigest(principal: string): string {
  return principal === '' ? '' : createHash('sha256').update(principal).digest('base64url')
}

function stableJson(value: unknown, skip?: ReadonlySet<string>): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableJson(item)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value)
      .filter((key) => skip === undefined || !skip.has(key))
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

function refused(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`)
}
