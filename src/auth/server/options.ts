import type { Observer } from '../../observe/observer.js'
import { isIP } from 'node:net'
import type { ChildDirectory } from './admin/child-directory.js'
import { z } from 'zod'
import { defaults } from '../../config/defaults.js'
import type { RedisConnection } from '../../redis/connection.js'
import type { AuthStorage } from '../../storage/types.js'
import { isLoopbackHostname } from '../../config/loopback-hosts.js'
import { isRefusedAddress } from '../../net/guarded-fetch.js'
import { brandingSchema, resolveBranding, type PageBranding } from '../../views/branding.js'

const scopeToken = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'scope tokens are printable ASCII without spaces, quotes or backslashes')
const seconds = z.number().int().positive()

const serverUrl = (label: string) =>
  z
    .string()
    .refine((value) => URL.canParse(value), `${label} must be an absolute URL`)
    // zod runs every refinement: the later ones leave a value that is no URL to the first
    .refine((value) => {
      if (!URL.canParse(value)) return true
      const url = new URL(value)
      return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))
    }, `${label} must use https (http is accepted on loopback hosts only, for development)`)
    .refine((value) => {
      if (!URL.canParse(value)) return true
      const url = new URL(value)
      return url.search === '' && url.hash === '' && !value.includes('#') && !value.includes('?')
    }, `${label} must not have a query or fragment`)

/** A protected resource (an MCP server) tokens may be issued for, as configured or stored. */
export const resourceSchema = z.strictObject({
  uri: serverUrl('resource uri'),
  scopes: z.array(scopeToken).min(1).optional(),
  /** Granted when an authorization request names no scope, and what a new account may have. Default: the first of `scopes`. */
  defaultScopes: z.array(scopeToken).optional(),
  /** Shown on the consent page beside the URI. */
  name: z.string().min(1).max(200).optional(),
  /** What this server is, shown on the consent page under its name. */
  description: z.string().min(1).max(defaults.branding.maxDescriptionLength).optional(),
  /** What each scope lets an application do, shown on the consent page (scope → sentence; only scopes this resource offers). */
  scopeDescriptions: z.record(scopeToken, z.string().min(1).max(defaults.branding.maxDescriptionLength)).optional(),
  tokenFormat: z.enum(['jwt', 'opaque']).optional(),
  /** Lifetime (seconds) of access tokens for this resource; default `ttl.accessToken`. */
  accessTokenTtlSeconds: seconds.optional(),
  /** Issue tokens for this resource only to token requests with a DPoP proof (RFC 9449): every token is bound. */
  requireDpop: z.boolean().optional(),
  /**
   * Other endpoint URLs of the same MCP server (e.g. its `/sse` and `/rest` beside `/mcp`): each is
   * a resource identifier of its own (a token for it carries it as `aud`, RFC 8707) with this
   * resource's scopes, default scopes, token format, lifetime and DPoP requirement, and a user's
   * grant for any of them covers them all.
   */
  aliases: z.array(serverUrl('resource alias')).optional(),
})

export type ResourceInput = z.input<typeof resourceSchema>

const redisUrl = z.string().refine((value) => URL.canParse(value) && ['redis:', 'rediss:'].includes(new URL(value).protocol), 'redis must be a redis:// or rediss:// URL')

/** The options of {@link createAuthorizationServer} that can come from a JSON configuration file. */
export const authorizationServerOptionsSchema = z.strictObject({
  /** Issuer identifier (RFC 8414 §2); its path, if any, is where the server is mounted. */
  issuer: serverUrl('issuer').optional(),
  /** Data directory: embedded store, signing keys, secrets. */
  dataDir: z.string().min(1).optional(),
  /** Protected resources (MCP servers) tokens may be issued for; the first is the default. */
  resources: z.array(resourceSchema).min(1).optional(),
  /** What `client_credentials` clients may get. */
  clientCredentials: z
    .strictObject({
      /**
       * Scopes a client registered through open registration or a client ID metadata document may
       * register for client_credentials. Default: every resource's `defaultScopes`.
       */
      openRegistrationScopes: z.array(scopeToken).optional(),
    })
    .optional(),
  /** Pre-registered clients (RFC 7591 metadata, with client_id and, for confidential ones, client_secret). */
  clients: z.array(z.looseObject({ client_id: z.string().min(1) })).optional(),
  registration: z
    .strictObject({
      enabled: z.boolean().optional(),
      /** When set, POST /register needs `Authorization: Bearer <this>`. */
      initialAccessToken: z.string().min(16, 'initialAccessToken needs at least 16 characters').optional(),
      unusedClientTtlSeconds: seconds.optional(),
      /** Unused registrations one address group may hold (default in config/defaults.ts). */
      maxUnusedPerAddress: z.number().int().min(1).optional(),
      /** Unused registrations all groups together may hold; at least maxUnusedPerAddress. */
      maxUnused: z.number().int().min(1).optional(),
    })
    .refine((r) => (r.maxUnused ?? defaults.authServer.registration.maxUnused) >= (r.maxUnusedPerAddress ?? defaults.authServer.registration.maxUnusedPerAddress), {
      message: 'registration.maxUnused must be at least registration.maxUnusedPerAddress',
    })
    .optional(),
  clientIdMetadataDocuments: z.strictObject({ enabled: z.boolean().optional(), allowPrivateAddresses: z.boolean().optional() }).optional(),
  /**
   * The JWT bearer grant (RFC 7523 §2.1) for workloads: assertions from these issuers only, each
   * with its keys (`jwks`, `jwksUri`, or its discovery document), and each subject mapped to the
   * client it acts as or the account it acts for. Off when absent.
   */
  jwtBearer: z
    .strictObject({
      issuers: z
        .array(
          z
            .strictObject({
              issuer: z.string().refine((value) => URL.canParse(value), 'issuer must be a URL'),
              jwks: z.strictObject({ keys: z.array(z.looseObject({ kty: z.string() })).min(1) }).optional(),
              jwksUri: serverUrl('jwksUri').optional(),
              /** Its discovery and keys may be on a private, loopback or link-local address (an internal issuer). Default false. */
              allowPrivateAddresses: z.boolean().optional(),
              /** Subject (`sub`) → `{ client: clientId }` (a machine client's token) or `{ account: username }` (a token for that account). */
              subjects: z.record(z.string().min(1), z.union([z.strictObject({ client: z.string().min(1) }), z.strictObject({ account: z.string().min(1) })])),
            })
            .refine((entry) => entry.jwks !== undefined || entry.allowPrivateAddresses === true || !namesPrivateHost(entry.jwksUri ?? entry.issuer), {
              message: 'its keys or discovery are on a private or loopback address: set allowPrivateAddresses: true for an internal issuer',
              path: ['allowPrivateAddresses'],
            }),
        )
        .min(1),
    })
    .optional(),
  /** Delegate user login to an upstream identity provider (OpenID Connect or plain OAuth). */
  upstream: z
    .strictObject({
      issuer: serverUrl('upstream issuer'),
      /** Its endpoints may be on a private, loopback or link-local address (an internal identity provider). Default false. */
      allowPrivateAddresses: z.boolean().optional(),
      clientId: z.string().min(1),
      clientSecret: z.string().min(1).optional(),
      /** private_key_jwt instead of a secret: a PKCS#8 PEM key and its JWS algorithm. */
      privateKeyPem: z.string().min(1).optional(),
      privateKeyAlg: z.string().optional(),
      scopes: z.array(scopeToken).optional(),
      /** Endpoints for a provider without discovery; omitted: read from its metadata. */
      endpoints: z
        .strictObject({
          authorization_endpoint: serverUrl('authorization_endpoint'),
          token_endpoint: serverUrl('token_endpoint'),
          userinfo_endpoint: serverUrl('userinfo_endpoint').optional(),
          revocation_endpoint: serverUrl('revocation_endpoint').optional(),
          jwks_uri: serverUrl('jwks_uri').optional(),
        })
        .optional(),
      /** Which upstream claims become the local username, name and email. */
      claims: z.strictObject({ username: z.string().optional(), name: z.string().optional(), email: z.string().optional() }).optional(),
      /**
       * The scopes an upstream user's account may be granted, set at every upstream login: the
       * union of `map[value]` for each value of the claim `claim` (a string or a list, e.g.
       * `groups`), else `default`; without this option (or with no match and no default), the
       * resources' default scopes.
       */
      accountScopes: z.strictObject({ claim: z.string().min(1), map: z.record(z.string(), z.array(scopeToken)), default: z.array(scopeToken).optional() }).optional(),
    })
    .refine(
      (upstream) =>
        upstream.allowPrivateAddresses === true || ![upstream.issuer, ...Object.values(upstream.endpoints ?? {})].some((url) => url !== undefined && namesPrivateHost(url)),
      {
        message: 'the upstream provider is on a private or loopback address: set allowPrivateAddresses: true for an internal identity provider',
        path: ['allowPrivateAddresses'],
      },
    )
    .optional(),
  ttl: z
    .strictObject({
      accessToken: seconds,
      authorizationCode: seconds,
      clientCredentials: seconds,
      refreshToken: seconds,
      grant: seconds,
      interaction: seconds,
      session: seconds,
      idToken: seconds,
    })
    .partial()
    .optional(),
  refreshTokens: z
    .strictObject({ reuseGraceSeconds: z.number().int().min(0) })
    .partial()
    .optional(),
  rateLimits: z
    .union([
      z.literal(false),
      z
        .strictObject({
          registrationPerAddress: seconds,
          tokenPerAddress: seconds,
          tokenPerClient: seconds,
          loginPerAddress: seconds,
          loginPerAccount: seconds,
          windowSeconds: seconds,
        })
        .partial(),
    ])
    .optional(),
  /**
   * How recent a person's sign-in must be for the admin API (seconds; defaults
   * `authServer.admin.maxLoginAgeSeconds` and `sensitiveLoginAgeSeconds`): older, it answers 401
   * `insufficient_user_authentication` with `max_age` (RFC 9470) and the client signs them in again.
   */
  admin: z.strictObject({ maxLoginAgeSeconds: seconds, sensitiveLoginAgeSeconds: seconds }).partial().optional(),
  /** The operator's product name, logo and colours on every page (login, consent, logout, errors). */
  branding: brandingSchema.optional(),
  /** Trust X-Forwarded-* from a TLS-terminating proxy in front of us. */
  trustProxy: z.boolean().optional(),
  accessTokenAlg: z.enum(['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA']).optional(),
  /**
   * Run as one of several nodes on Redis (`redis://host:6379`, or `{ url, prefix }` to share one
   * Redis between deployments): storage, rate limits and revocations are shared; every node
   * needs the same `jwks.json` and `secrets.json` in its data directory.
   */
  redis: z.union([redisUrl, z.strictObject({ url: redisUrl, prefix: z.string().min(1).optional() })]).optional(),
})

export type AuthorizationServerConfig = z.input<typeof authorizationServerOptionsSchema>

/** Options of {@link createAuthorizationServer}: the configuration plus what only code can pass. */
export interface AuthorizationServerOptions extends Omit<AuthorizationServerConfig, 'redis'> {
  /** A storage backend; default: lowdb in `dataDir`, or Redis when `redis` is set. */
  storage?: AuthStorage
  /**
   * Redis shared by the nodes of a deployment: a URL, `{ url, prefix }`, or a connection of the
   * caller's (left open by `close()`; one the server opens itself, it closes).
   */
  redis?: AuthorizationServerConfig['redis'] | RedisConnection
  /**
   * Fetch used for client ID metadata documents. Only for tests and development setups that
   * must reach a document over a custom TLS trust store.
   */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** The gateway's children in this process, for the admin API's `/children` (the gateway job passes them). */
  children?: ChildDirectory
  /** Where the server reports: its log, its audit trail, metrics and spans (default: nothing reported). */
  observer?: Observer
}

export type UpstreamOptions = NonNullable<z.output<typeof authorizationServerOptionsSchema>['upstream']>

/** The JWT bearer grant's trusted issuers and subject mapping. */
export type JwtBearerOptions = NonNullable<z.output<typeof authorizationServerOptionsSchema>['jwtBearer']>

/** A protected resource with its scopes resolved. */
export interface ResolvedResource {
  uri: string
  scopes: string[]
  /** Subset of `scopes`: for scope-less requests and accounts without their own scope list. */
  defaultScopes: string[]
  name?: string
  /** What this server is (consent page). */
  description?: string
  /** Scope → what it lets an application do (consent page); read with `Object.hasOwn`. */
  scopeDescriptions?: Record<string, string>
  tokenFormat: 'jwt' | 'opaque'
  /** Seconds; absent: the server's `ttl.accessToken`. */
  accessTokenTtlSeconds?: number
  /** Tokens only with a DPoP proof. */
  requireDpop?: boolean
  /** Other identifiers (endpoint URLs) of the same server; absent when it has none. */
  aliases?: string[]
}

/**
 * A resource with its defaults filled in (scopes `defaults.authServer.resourceScopes`, default
 * scopes the first of them, JWT tokens). Throws a TypeError naming what is wrong.
 */
export function resolveResource(input: ResourceInput): ResolvedResource {
  const parsed = resourceSchema.safeParse(input)
  if (!parsed.success) {
    throw new TypeError(`invalid resource:\n  ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'resource'}: ${issue.message}`).join('\n  ')}`)
  }
  const resource = parsed.data
  const scopes = [...new Set(resource.scopes ?? defaults.authServer.resourceScopes)]
  const defaultScopes = resource.defaultScopes ?? scopes.slice(0, 1)
  const unknown = defaultScopes.filter((scope) => !scopes.includes(scope))
  if (unknown.length > 0) throw new TypeError(`invalid resource:\n  defaultScopes of ${resource.uri} name scopes it does not offer: ${unknown.join(' ')}`)
  const described = Object.keys(resource.scopeDescriptions ?? {}).filter((scope) => !scopes.includes(scope))
  if (described.length > 0) throw new TypeError(`invalid resource:\n  scopeDescriptions of ${resource.uri} describe scopes it does not offer: ${described.join(' ')}`)
  const aliases = [...new Set(resource.aliases ?? [])]
  if (aliases.includes(resource.uri)) throw new TypeError(`invalid resource:\n  aliases of ${resource.uri} name the resource itself`)
  return {
    uri: resource.uri,
    scopes,
    defaultScopes,
    tokenFormat: resource.tokenFormat ?? 'jwt',
    ...(resource.name !== undefined ? { name: resource.name } : {}),
    ...(resource.description !== undefined ? { description: resource.description } : {}),
    ...(resource.scopeDescriptions !== undefined ? { scopeDescriptions: Object.fromEntries(Object.entries(resource.scopeDescriptions)) } : {}),
    ...(resource.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: resource.accessTokenTtlSeconds } : {}),
    ...(resource.requireDpop === true ? { requireDpop: true } : {}),
    ...(aliases.length > 0 ? { aliases } : {}),
  }
}

/**
 * The identifiers two resources share (a URI or an alias of one is a URI or an alias of the
 * other): each identifier names one server, so such a pair cannot be served side by side.
 */
export function sharedIdentifiers(a: Pick<ResolvedResource, 'uri' | 'aliases'>, b: Pick<ResolvedResource, 'uri' | 'aliases'>): string[] {
  const ofB = new Set([b.uri, ...(b.aliases ?? [])])
  return [a.uri, ...(a.aliases ?? [])].filter((identifier) => ofB.has(identifier))
}

type RateLimits = { -readonly [K in keyof typeof defaults.authServer.rateLimits]: number }

/** Options with every default filled in. */
export interface ResolvedOptions {
  issuer: URL
  /** The issuer's path without a trailing slash ('' at the root). */
  mountPath: string
  dataDir: string
  resources: ResolvedResource[]
  clientCredentials: { openRegistrationScopes: string[] }
  clients: Array<Record<string, unknown> & { client_id: string }>
  registration: { enabled: boolean; initialAccessToken?: string; unusedClientTtlSeconds: number; maxUnusedPerAddress: number; maxUnused: number }
  clientIdMetadataDocuments: { enabled: boolean; allowPrivateAddresses: boolean }
  ttl: { -readonly [K in keyof typeof defaults.authServer.ttl]: number }
  refreshTokens: { reuseGraceSeconds: number }
  rateLimits: RateLimits | false
  /** The admin API's sign-in ages (seconds). */
  admin: { maxLoginAgeSeconds: number; sensitiveLoginAgeSeconds: number }
  trustProxy: boolean
  /** The pages' product name, logo and colours. */
  branding: PageBranding
  accessTokenAlg: string
  jwtBearer?: JwtBearerOptions
  upstream?: UpstreamOptions
  storage?: AuthStorage
  redis?: { url: string; prefix?: string } | RedisConnection
  fetch?: AuthorizationServerOptions['fetch']
}

/** A connection object rather than connection settings (told apart without loading ioredis). */
export function isRedisConnection(value: unknown): value is RedisConnection {
  return typeof value === 'object' && value !== null && typeof (value as Partial<RedisConnection>).run === 'function'
}

/** Validates options (unknown keys and bad values throw with a readable message) and fills defaults. */
export function resolveOptions(options: AuthorizationServerOptions = {}): ResolvedOptions {
  const { storage, fetch, redis, children: _children, observer: _observer, ...rest } = options
  const connection = isRedisConnection(redis) ? redis : undefined
  const config = connection === undefined && redis !== undefined ? { ...rest, redis } : rest
  const parsed = authorizationServerOptionsSchema.safeParse(config)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`)
    throw new TypeError(`invalid authorization server options:\n  ${problems.join('\n  ')}`)
  }
  const value = parsed.data
  const issuer = new URL((value.issuer ?? defaults.authServer.issuer).replace(/\/+$/, ''))
  const mountPath = issuer.pathname.replace(/\/+$/, '')
  // URLs a client supplies never reach private addresses, except on a development (loopback) server
  if (value.clientIdMetadataDocuments?.allowPrivateAddresses === true && !isLoopbackHostname(issuer.hostname)) {
    throw new TypeError(
      `invalid authorization server options:\n  clientIdMetadataDocuments.allowPrivateAddresses: only for development on a loopback issuer; ${issuer.origin} fetches what clients name on public addresses only`,
    )
  }
  const a = defaults.authServer
  const resources = (value.resources ?? [{ uri: `${issuer.origin}${defaults.streamableHttp.path}` }]).map((resource) => {
    try {
      return resolveResource(resource)
    } catch (error) {
      throw new TypeError(`invalid authorization server options:\n  resources: ${(error as Error).message.replace(/^invalid resource:\n\s*/, '')}`)
    }
  })
  // an identifier names one server: no resource's URI or alias is another's
  resources.forEach((resource, i) => {
    for (const other of resources.slice(i + 1)) {
      const shared = sharedIdentifiers(resource, other)
      if (shared.length > 0)
        throw new TypeError(`invalid authorization server options:\n  resources: ${shared.join(' ')} is both ${resource.uri} (or its alias) and ${other.uri} (or its alias)`)
    }
  })
  return {
    issuer,
    mountPath,
    dataDir: value.dataDir ?? defaults.storage.dataDir,
    resources,
    clientCredentials: {
      openRegistrationScopes: value.clientCredentials?.openRegistrationScopes ?? [...new Set(resources.flatMap((resource) => resource.defaultScopes))],
    },
    clients: (value.clients ?? []) as ResolvedOptions['clients'],
    registration: {
      enabled: value.registration?.enabled ?? a.registration.enabled,
      ...(value.registration?.initialAccessToken !== undefined ? { initialAccessToken: value.registration.initialAccessToken } : {}),
      unusedClientTtlSeconds: value.registration?.unusedClientTtlSeconds ?? a.registration.unusedClientTtlSeconds,
      maxUnusedPerAddress: value.registration?.maxUnusedPerAddress ?? a.registration.maxUnusedPerAddress,
      maxUnused: value.registration?.maxUnused ?? a.registration.maxUnused,
    },
    clientIdMetadataDocuments: {
      enabled: value.clientIdMetadataDocuments?.enabled ?? a.clientIdMetadataDocuments.enabled,
      allowPrivateAddresses: value.clientIdMetadataDocuments?.allowPrivateAddresses ?? a.clientIdMetadataDocuments.allowPrivateAddresses,
    },
    ttl: { ...a.ttl, ...value.ttl },
    refreshTokens: { reuseGraceSeconds: value.refreshTokens?.reuseGraceSeconds ?? a.refreshTokens.reuseGraceSeconds },
    rateLimits: value.rateLimits === false ? false : { ...a.rateLimits, ...value.rateLimits },
    admin: {
      maxLoginAgeSeconds: value.admin?.maxLoginAgeSeconds ?? a.admin.maxLoginAgeSeconds,
      sensitiveLoginAgeSeconds: value.admin?.sensitiveLoginAgeSeconds ?? a.admin.sensitiveLoginAgeSeconds,
    },
    trustProxy: value.trustProxy ?? false,
    branding: resolveBranding(value.branding),
    accessTokenAlg: value.accessTokenAlg ?? a.accessTokenAlg,
    ...(value.upstream !== undefined ? { upstream: value.upstream } : {}),
    ...(value.jwtBearer !== undefined ? { jwtBearer: value.jwtBearer } : {}),
    ...(storage !== undefined ? { storage } : {}),
    ...(connection !== undefined ? { redis: connection } : value.redis !== undefined ? { redis: typeof value.redis === 'string' ? { url: value.redis } : value.redis } : {}),
    ...(fetch !== undefined ? { fetch } : {}),
  }
}

/** A URL whose host is a loopback name or a private or special-use IP literal: the outbound fetch would refuse it. */
function namesPrivateHost(value: string): boolean {
  if (!URL.canParse(value)) return false
  const { hostname } = new URL(value)
  const host = hostname.replace(/^\[|\]$/g, '')
  return isLoopbackHostname(hostname) || (isIP(host) !== 0 && isRefusedAddress(host))
}
