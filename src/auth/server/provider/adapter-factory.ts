import { createHash } from 'node:crypto'
import { errors } from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import { isStorageUnavailable } from '../../../storage/errors.js'
import type { AuthStorage, OidcAdapter, OidcPayload } from '../../../storage/types.js'
import { SecretBox } from '../keys/secret-box.js'
import { defaults } from '../../../config/defaults.js'
import { BoundedMap } from '../../../collections/bounded-map.js'
import { currentContext, isTokenRequest, oidcOf } from './oidc-context.js'

/**
 * Authorization codes looked up by a token request, per request: when the request fails (wrong
 * verifier, client or redirect_uri), `burnFailedCodes` destroys the code, so it cannot be tried again.
 */
export const redeemedCodes = new WeakMap<object, string>()

function codeAdapter(inner: OidcAdapter): OidcAdapter {
  return {
    ...bind(inner),
    async find(id) {
      const ctx = currentContext()
      if (ctx !== undefined && oidcOf(ctx)?.route === 'token') redeemedCodes.set(ctx, id)
      return inner.find(id)
    },
    async consume(id) {
      // Two token requests with one code, on two processes at once, both found it unused: only the
      // one that marks it first goes on to get tokens.
      if (!(await inner.claim(id, 'consumed'))) throw new errors.InvalidGrant('authorization code already used')
    },
  }
}

/**
 * A storage outage is not a server error: oidc-provider answers it 503 `temporarily_unavailable`
 * (the client may retry), and nothing was written half-way.
 */
function outageAs503(inner: OidcAdapter): OidcAdapter {
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args)
      } catch (error) {
        if (!isStorageUnavailable(error)) throw error
        const unavailable = new errors.TemporarilyUnavailable('the authorization server cannot reach its storage; retry shortly', { cause: error })
        Object.assign(unavailable, { status: 503, statusCode: 503, expose: true })
        throw unavailable
      }
    }
  const bound = bind(inner)
  return {
    upsert: guard(bound.upsert),
    find: guard(bound.find),
    findByUid: guard(bound.findByUid),
    findByUserCode: guard(bound.findByUserCode),
    consume: guard(bound.consume),
    claim: guard(bound.claim),
    create: guard(bound.create),
    destroy: guard(bound.destroy),
    revokeByGrantId: guard(bound.revokeByGrantId),
    list: guard(bound.list),
  }
}

export interface AdapterFactoryOptions {
  /** Encrypts client secrets at rest. */
  box: SecretBox
  /** Seconds a rotated refresh token is still honoured (0: never). */
  reuseGraceSeconds: number
  /** Whether a resource takes DPoP-bound tokens only (`requireDpop`): a refresh for it without a proof is refused before the token is used up. */
  dpopRequired?: (resource: string) => boolean
  now?: () => number
}

/**
 * Client records keep `client_secret` sealed with the data key: the data file never holds a
 * secret in plain text. oidc-provider needs the plain value back (client_secret_jwt, HS256), so
 * the secret is encrypted rather than hashed.
 */
function clientAdapter(inner: OidcAdapter, box: SecretBox): OidcAdapter {
  // every token request reads its client: a sealed value (its IV is random, so one sealed string
  // is one plaintext) is opened once, not on each request (an AES-GCM key setup per token)
  const opened = new BoundedMap<string, string>(defaults.authServer.openedClientSecrets, { evictBeforeSet: true })
  const open = (sealed: string, id: string): string => {
    const memo = `${id}\u0000${sealed}`
    let plain = opened.get(memo)
    if (plain === undefined) {
      plain = box.open(sealed, `client:${id}`)
      opened.set(memo, plain)
    }
    return plain
  }
  return {
    ...bind(inner),
    async upsert(id, payload, expiresIn) {
      const secret = payload['client_secret']
      const stored = typeof secret === 'string' && !SecretBox.isSealed(secret) ? { ...payload, client_secret: box.seal(secret, `client:${id}`) } : payload
      await inner.upsert(id, stored, expiresIn)
    },
    async find(id) {
      const payload = await inner.find(id)
      const secret = payload?.['client_secret']
      if (payload === undefined || !SecretBox.isSealed(secret)) return payload
      return { ...payload, client_secret: open(secret, id) }
    },
  }
}

/** The request being served, when it is a refresh_token grant (oidc-provider's own async context). */
function refreshRequest(): KoaContextWithOIDC | undefined {
  const ctx = currentContext()
  return isTokenRequest(oidcOf(ctx), 'refresh_token') ? ctx : undefined
}

const secondsLeft = (payload: OidcPayload, now: number): number => Math.max(1, Number(payload['exp'] ?? 0) - Math.floor(now / 1000))

/**
 * Refresh-token rotation with a grace window, without forks: within `graceSeconds` of its first
 * use, a rotated token is honoured once more (a client whose response was lost is not logged
 * out), and that retry revokes the successor the first use issued, so the chain never splits in
 * two live ones. A second reuse, or any reuse after the window, is presented to oidc-provider as
 * consumed, and its reuse detection revokes the whole grant. Only the token endpoint's
 * refresh_token grant sees the grace; introspection and revocation see a consumed token.
 *
 * `stored` is the adapter below the id hashing: successors are linked, in `links`, by the digest
 * of their id, so no token value is written to the store. Every step is safe across processes
 * sharing the store: first use and the grace retry are claims (atomic), and the link is written
 * before a first use checks for a retry, which claims before it reads the link.
 */
function refreshTokenAdapter(
  inner: OidcAdapter,
  stored: OidcAdapter,
  links: OidcAdapter,
  graceSeconds: number,
  now: () => number,
  dpopRequired: (resource: string) => boolean,
): OidcAdapter {
  // The tokens whose grace retry a request took (it may look the token up again, and consumes it).
  const takenBy = new WeakMap<object, Set<string>>()
  const took = (ctx: object | undefined, id: string): boolean => ctx !== undefined && takenBy.get(ctx)?.has(id) === true
  const honoured = (payload: OidcPayload): OidcPayload => {
    const { consumed: _consumed, graceUsed: _graceUsed, ...rest } = payload
    return rest as OidcPayload
  }
  return {
    ...bind(inner),
    async find(id) {
      const payload = await inner.find(id)
      // oidc-provider learns the token's resource only after it rotated the token: refused there,
      // a proof-less refresh for a resource that takes bound tokens only would use it up
      const resources = payload?.['resource']
      if (resources !== undefined && refreshRequest()?.get('DPoP') === '' && [resources].flat().some((uri) => typeof uri === 'string' && dpopRequired(uri))) {
        throw new errors.InvalidDpopProof(`tokens for ${String(resources)} are DPoP-bound only: send a DPoP proof with the token request (RFC 9449)`)
      }
      if (payload?.consumed === undefined || graceSeconds <= 0) return payload
      const ctx = refreshRequest()
      if (ctx === undefined) return payload
      if (took(ctx, id)) return honoured(payload)
      if (now() / 1000 - payload.consumed > graceSeconds || payload['graceUsed'] !== undefined) return payload
      // One retry in the grace window, whichever process it lands on: the claim is atomic in the store.
      if (!(await inner.claim(id, 'graceUsed'))) return payload
      takenBy.set(ctx, (takenBy.get(ctx) ?? new Set()).add(id))
      // Claim first, then read the link: a first use still finishing writes its link before it
      // checks for the claim, so one of the two always sees the other (see upsert).
      const link = await links.find(digest(id))
      if (typeof link?.['successor'] === 'string') await stored.destroy(link['successor'])
      return honoured(payload)
    },
    async upsert(id, payload, expiresIn) {
      await inner.upsert(id, payload, expiresIn)
      const ctx = refreshRequest()
      const rotated = oidcOf(ctx)?.entities.RotatedRefreshToken as { jti?: string } | undefined
      if (rotated?.jti === undefined || rotated.jti === id || took(ctx, rotated.jti)) return
      const previous = await inner.find(rotated.jti)
      if (previous === undefined) return
      await links.upsert(digest(rotated.jti), { successor: digest(id) }, secondsLeft(previous, now()))
      // A retry took the grace while this first use was still running, before the link above
      // existed: it could not end this successor, so this one ends it. One chain lives on.
      if ((await inner.find(rotated.jti))?.['graceUsed'] !== undefined) await stored.destroy(digest(id))
    },
    async consume(id) {
      // the honoured grace retry consumes a token already consumed: it keeps its first consumption time
      if (took(refreshRequest(), id)) return
      // Two refreshes with one token, on two processes at once, both found it unused: only the one
      // that marks it first rotates it; the other is told it was used.
      if (!(await inner.claim(id, 'consumed'))) throw new errors.InvalidGrant('refresh token already used')
    },
  }
}

/** Where a rotated refresh token's successor is named (by digests), beside the token's own record. */
const SUCCESSOR_LINKS = 'RefreshTokenSuccessor'

/**
 * Models whose record id is a bearer credential (the opaque token value itself). Their records
 * are stored under a SHA-256 of the id, without the `jti` copy oidc-provider puts in the payload,
 * so a copy of the data file holds no usable token. (Session and DeviceCode are looked up by
 * `uid` / `userCode` and need their id back, so they keep it.)
 */
export const CREDENTIAL_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
])

const digest = (id: string): string => createHash('sha256').update(id).digest('base64url')

function hashedIdAdapter(inner: OidcAdapter): OidcAdapter {
  return {
    ...bind(inner),
    async upsert(id, payload, expiresIn) {
      const { jti: _jti, ...rest } = payload
      await inner.upsert(digest(id), rest as OidcPayload, expiresIn)
    },
    async find(id) {
      const payload = await inner.find(digest(id))
      return payload === undefined ? undefined : { ...payload, jti: id }
    },
    consume: (id) => inner.consume(digest(id)),
    claim: (id, field) => inner.claim(digest(id), field),
    async create(id, payload, expiresIn) {
      const { jti: _jti, ...rest } = payload
      return inner.create(digest(id), rest as OidcPayload, expiresIn)
    },
    destroy: (id) => inner.destroy(digest(id)),
  }
}

function bind(inner: OidcAdapter): OidcAdapter {
  return {
    upsert: inner.upsert.bind(inner),
    find: inner.find.bind(inner),
    findByUid: inner.findByUid.bind(inner),
    findByUserCode: inner.findByUserCode.bind(inner),
    consume: inner.consume.bind(inner),
    claim: inner.claim.bind(inner),
    create: inner.create.bind(inner),
    destroy: inner.destroy.bind(inner),
    revokeByGrantId: inner.revokeByGrantId.bind(inner),
    list: inner.list.bind(inner),
  }
}

/**
 * oidc-provider's `adapter` option over a storage backend, with our policies layered on the
 * models they concern. Returns a class-like factory: oidc-provider calls it with `new`.
 */
export function createAdapterFactory(storage: AuthStorage, options: AdapterFactoryOptions): new (name: string) => OidcAdapter {
  const now = options.now ?? Date.now
  const cache = new Map<string, OidcAdapter>()
  function adapterFor(name: string): OidcAdapter {
    let adapter = cache.get(name)
    if (adapter === undefined) {
      const stored = outageAs503(storage.adapter(name))
      const inner = CREDENTIAL_MODELS.has(name) ? hashedIdAdapter(stored) : stored
      adapter =
        name === 'Client'
          ? clientAdapter(inner, options.box)
          : name === 'RefreshToken'
            ? refreshTokenAdapter(inner, stored, outageAs503(storage.adapter(SUCCESSOR_LINKS)), options.reuseGraceSeconds, now, options.dpopRequired ?? (() => false))
            : name === 'AuthorizationCode'
              ? codeAdapter(inner)
              : bind(inner)
      cache.set(name, adapter)
    }
    return adapter
  }
  // A function returning an object works with `new` too: the object is the instance.
  return function Adapter(name: string) {
    return adapterFor(name)
  } as unknown as new (
    name: string,
  ) => OidcAdapter
}
