import type { Configuration, KoaContextWithOIDC, ClientMetadata, Account as OidcAccount } from 'oidc-provider'
import { errors, interactionPolicy } from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import type { OidcAdapter } from '../../../storage/types.js'
import type { AccountStore } from '../stores/account-store.js'
import type { ConsentStore } from '../stores/consent-store.js'
import type { ResolvedOptions } from '../options.js'
import type { ScopePolicy } from './scope-policy.js'
import { grantDigest } from '../stores/grant-revocations.js'
import { metadataTooLarge } from '../middleware/registration-limits.js'
import { outboundFetch } from '../../../net/outbound-fetch.js'
import type { PrivateJwk } from '../keys/signing-keys.js'
import { redirectUriProblem } from './redirect-policy.js'
import { defaultResourceOf } from './resource-groups.js'
import { ResourceServerInfos } from './resource-server-info.js'
import { pageHeaders, renderView } from '../../../views/render-view.js'
import { clientDisplayName } from '../interactions/client-display-name.js'
import { BoundedMap } from '../../../collections/bounded-map.js'
import { isTokenRequest, oidcOf } from './oidc-context.js'

export interface ProviderConfigurationDeps {
  adapter: new (name: string) => OidcAdapter
  jwks: { keys: PrivateJwk[] }
  cookieKeys: string[]
  accounts: AccountStore
  consents: ConsentStore
  scopes: ScopePolicy
  /** With delegated login: whether the account must sign in at the upstream again (its upstream session ended). */
  upstreamLoginNeeded?: (accountId: string) => Promise<boolean>
  /** 32 bytes every node shares: the key of oidc-provider's DPoP nonces. */
  dpopNonceSecret: Buffer
}

/** RFC 7591 metadata MCP clients send that we keep (and hang our redirect policy on). */
const EXTRA_CLIENT_METADATA = ['software_id', 'software_version'] as const

/**
 * The oidc-provider configuration for an MCP authorization server, built from resolved options.
 * Each decision oidc-provider leaves to the deployment is made here, with its reason:
 * - every client must use PKCE (S256 is the only method oidc-provider 9 implements);
 * - `resource` defaults to the configured MCP resource, and access tokens for it are RFC 9068
 *   JWTs whose `aud` is that resource;
 * - refresh tokens are issued to every client allowed the refresh_token grant (MCP clients
 *   expect one after an ordinary consent, without `offline_access` or `prompt=consent`), rotate on
 *   every use, and outlive the browser session;
 * - redirect URIs are https, or http on a loopback host, for registered, static and CIMD clients;
 * - client_credentials is for clients that authenticate, and carries at most the client's
 *   registered scope; a user grant carries at most what the account may have (see ScopePolicy).
 */
export function providerConfiguration(options: ResolvedOptions, deps: ProviderConfigurationDeps): Configuration {
  const resourceScopes = [...new Set(options.resources.flatMap((resource) => resource.scopes))]
  const defaultResource = options.resources[0]!.uri
  const a = defaults.authServer
  const infos = new ResourceServerInfos({ scopes: deps.scopes, accessTokenAlg: options.accessTokenAlg, maxScopes: a.keptScopesPerResource })

  return {
    adapter: deps.adapter as unknown as Configuration['adapter'],
    clients: options.clients as ClientMetadata[],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    scopes: [...new Set([...a.oidcScopes, ...resourceScopes])],
    responseTypes: ['code'],
    cookies: {
      keys: deps.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    jwks: deps.jwks as Configuration['jwks'],
    routes: { ...a.routes },
    pkce: { required: () => true },
    // the proof algorithms our resource servers accept too (asymmetric only)
    enabledJWA: { dPoPSigningAlgValues: [...defaults.resourceServer.dpop.algorithms] as NonNullable<Configuration['enabledJWA']>['dPoPSigningAlgValues'] },
    features: {
      devInteractions: { enabled: false },
      registration: {
        enabled: options.registration.enabled,
        initialAccessToken: options.registration.initialAccessToken ?? false,
        issueRegistrationAccessToken: true,
      },
      registrationManagement: { enabled: options.registration.enabled, rotateRegistrationAccessToken: true },
      clientCredentials: { enabled: true },
      // RFC 9449: a token request with a proof gets tokens bound to its key (cnf.jkt, token_type
      // DPoP; a public client's refresh token too); replayed proofs are refused through the
      // adapter's ReplayDetection records, which every node shares
      dPoP: { enabled: true, nonceSecret: deps.dpopNonceSecret, requireNonce: () => a.dpop.requireNonce },
      // Both policies are oidc-provider 9's defaults (lib/helpers/defaults.js), written out so the
      // decision is ours and oidc-provider prints no "you SHOULD change it" notice: a public client
      // may introspect only its own tokens, an authenticated client any token it presents;
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => client.clientAuthMethod !== 'none' || token.clientId === client.clientId,
      },
      // a client revokes only its own tokens: another client's token is ignored for a public client
      // (RFC 7009 answers 200 either way) and refused as invalid_request for an authenticated one.
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true
          if (client.clientAuthMethod === 'none') return false
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token')
        },
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // Our page, not oidc-provider's: no external font, CSP and frame-ancestors 'none' (no
        // framing a sign-out button), and signing out takes the user's click.
        logoutSource(ctx: KoaContextWithOIDC, form: string) {
          ctx.set(pageHeaders(options.branding))
          ctx.type = 'html'
          ctx.body = renderView('logout', 'Sign out', { serverHost: options.issuer.host, form }, options.branding)
        },
        postLogoutSuccessSource(ctx: KoaContextWithOIDC) {
          const client = oidcOf(ctx)?.client
          ctx.set(pageHeaders(options.branding))
          ctx.type = 'html'
          ctx.body = renderView(
            'logged-out',
            'Signed out',
            {
              serverHost: options.issuer.host,
              clientPart: client === undefined ? '' : ` (asked by ${clientDisplayName(client.clientId, client.clientName)})`,
            },
            options.branding,
          )
        },
      },
      clientIdMetadataDocument: {
        enabled: options.clientIdMetadataDocuments.enabled,
        ack: 'draft-02',
        cacheDuration: { min: a.clientIdMetadataDocuments.cacheMinSeconds, max: a.clientIdMetadataDocuments.cacheMaxSeconds },
      },
      resourceIndicators: {
        enabled: true,
        // A 2025-03-26 client omits `resource`: bind its token to the configured MCP resource.
        // (several: the first of one server's identifiers, see resource-groups)
        defaultResource(_ctx: KoaContextWithOIDC, _client: unknown, oneOf?: string[]) {
          return defaultResourceOf(oneOf, defaultResource, deps.scopes)
        },
        useGrantedResource: () => true,
        getResourceServerInfo(ctx: KoaContextWithOIDC, indicator: string, client: { clientAuthMethod: string; scope?: string }) {
          const resource = deps.scopes.resource(indicator)
          if (resource === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`)
          const oidc = oidcOf(ctx)
          // a resource that takes bound tokens only: a token request without a proof gets nothing
          // (a proof that is there was checked before resources are resolved)
          if (resource.requireDpop === true && oidc?.route === 'token' && !ctx.get('DPoP')) {
            throw new errors.InvalidDpopProof(`tokens for ${indicator} are DPoP-bound only: send a DPoP proof with the token request (RFC 9449)`)
          }
          if (oidc !== undefined && isTokenRequest(oidc, 'client_credentials')) {
            // Registration already refuses this; a client from a document or an old store must not slip through.
            if (client.clientAuthMethod === 'none')
              throw new errors.UnauthorizedClient('client_credentials is only for clients that authenticate; a public client gets tokens for a user only')
            // OAuth 2.1 §3.2.2.1: no `scope` gets the resource's default scopes within the client's
            // registered scope, as an authorization request does (defaultScope), not a token
            // without scope the resource refuses; built once per registered scope (a lookup here)
            if (!oidc.params!['scope']) {
              const scope = infos.clientCredentialsDefaultScope(resource, client.scope)
              if (scope !== '') oidc.params!['scope'] = scope
            }
            return infos.forClientCredentials(resource, client.scope)
          }
          return infos.forUser(resource)
        },
      },
    } as Configuration['features'],
    fetchResponseBodyLimits: { 'client_id metadata document': a.clientIdMetadataDocuments.maxBytes },
    fetch: fetchFor(options),
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      validator(ctx, key, _value, metadata) {
        // Runs once per extra property whether present or not: apply the policies once.
        if (key !== EXTRA_CLIENT_METADATA[0]) return
        const tooLarge = metadataTooLarge(metadata as Record<string, unknown>, { maxString: a.registration.maxMetadataString, maxList: a.registration.maxMetadataList })
        if (tooLarge !== undefined) throw new errors.InvalidClientMetadata(tooLarge)
        clientCredentialsPolicy(ctx, metadata as Record<string, unknown>, deps.scopes)
        for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
          const uris = (metadata as Record<string, unknown>)[field]
          if (!Array.isArray(uris)) continue
          for (const uri of uris) {
            const problem = redirectUriProblem(uri)
            if (problem !== undefined) {
              // InvalidRedirectUri has a fixed description (for authorization requests); say what is wrong.
              throw field === 'redirect_uris' ? Object.assign(new errors.InvalidRedirectUri(), { error_description: problem }) : new errors.InvalidClientMetadata(problem)
            }
          }
        }
      },
    },
    async findAccount(_ctx, id): Promise<OidcAccount | undefined> {
      const account = await deps.accounts.findById(id)
      // a deleted or disabled account gets no token: no code redeemed, no refresh
      if (account === undefined || account.disabled === true) return undefined
      return {
        accountId: account.id,
        claims: () => ({ sub: account.id, preferred_username: account.username, ...account.claims }),
      }
    },
    async loadExistingGrant(ctx) {
      const { oidc } = ctx
      const client = oidc.client!
      const fromResult = oidc.result?.consent?.grantId
      const fromSession = oidc.session?.grantIdFor(client.clientId)
      const accountId = oidc.session?.accountId
      const remembered = accountId === undefined ? undefined : await deps.consents.grantIdFor(accountId, client.clientId)
      for (const grantId of [fromResult, fromSession, remembered]) {
        if (grantId === undefined) continue
        const grant = await oidc.provider.Grant.find(grantId)
        if (grant === undefined || grant.accountId !== accountId) continue
        // A grant consented before the account's scopes were narrowed keeps only what it may still have.
        const account = await deps.accounts.findById(accountId!)
        let narrowed = false
        for (const [indicator, granted] of Object.entries(grant.resources ?? {})) {
          const allowed = deps.scopes.accountScopes(account, indicator)
          const removed = String(granted)
            .split(' ')
            .filter((scope) => scope !== '' && !allowed.has(scope))
          if (removed.length === 0) continue
          grant.resources![indicator] = String(granted)
            .split(' ')
            .filter((scope) => allowed.has(scope))
            .join(' ')
          grant.rejectResourceScope(indicator, removed.join(' '))
          narrowed = true
        }
        if (narrowed) await grant.save()
        return grant
      }
      return undefined
    },
    interactions: {
      url: (_ctx, interaction) => `${options.mountPath}${a.interactionPath}/${interaction.uid}`,
      policy: interactionPolicyFor(deps),
    },
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && (a.refreshTokens.issueWithoutOfflineAccess || code.scopes.has('offline_access')),
    // `gid` lets a revoked grant reach its JWT access tokens (see GrantRevocations);
    // `preferred_username` names the account to the resource server, beside its UUID subject.
    // (not async: a client_credentials token, which has neither, costs no promise)
    extraTokenClaims: (_ctx, token) => {
      if (token.kind !== 'AccessToken' || typeof token.grantId !== 'string') return undefined
      const grantId = token.grantId
      const accountId = (token as { accountId?: unknown }).accountId
      if (typeof accountId !== 'string') return { gid: grantDigest(grantId) }
      return deps.accounts.findById(accountId).then((account) => ({
        gid: grantDigest(grantId),
        ...(account !== undefined ? { preferred_username: account.username } : {}),
      }))
    },
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? options.ttl.accessToken,
      AuthorizationCode: options.ttl.authorizationCode,
      ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? options.ttl.clientCredentials,
      RefreshToken: options.ttl.refreshToken,
      Grant: options.ttl.grant,
      Interaction: options.ttl.interaction,
      Session: options.ttl.session,
      IdToken: options.ttl.idToken,
    },
    async renderError(ctx, out) {
      ctx.set(pageHeaders(options.branding))
      ctx.type = 'html'
      ctx.body = renderView(
        'error',
        'Error',
        {
          error: out['error'],
          description: out['error_description'] ?? 'The request could not be completed.',
        },
        options.branding,
      )
    },
    clockTolerance: a.clockToleranceSeconds,
  }
}

/**
 * oidc-provider's prompts, plus one login check for delegated login: a live browser session is
 * not enough when the account's upstream session has ended (revoked upstream, refused at a
 * refresh): the user signs in at the upstream again instead of getting a grant that dies at its
 * first refresh.
 */
function interactionPolicyFor(deps: ProviderConfigurationDeps): ReturnType<typeof interactionPolicy.base> {
  const policy = interactionPolicy.base()
  const needed = deps.upstreamLoginNeeded
  if (needed === undefined) return policy
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('upstream_session_ended', 'the identity provider ended the session', async (ctx: KoaContextWithOIDC) => {
      const accountId = oidcOf(ctx)?.session?.accountId
      return accountId !== undefined && (await needed(accountId)) ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT
    }),
  )
  return policy
}

/**
 * Registration policy for client_credentials (RFC 7591 §2 lets the server refuse metadata):
 * a client without credentials never gets a token without a user, and a client that anyone could
 * have registered (open registration, its RFC 7592 update, a client ID metadata document — every
 * validation that runs inside a request) may register only the open-registration scopes for it.
 * Administrators (`clients add`, the configuration file) register without a request.
 */
function clientCredentialsPolicy(ctx: KoaContextWithOIDC | undefined, metadata: Record<string, unknown>, scopes: ScopePolicy): void {
  const grantTypes = metadata['grant_types']
  if (!Array.isArray(grantTypes) || !grantTypes.includes('client_credentials')) return
  if (metadata['token_endpoint_auth_method'] === 'none') {
    throw new errors.InvalidClientMetadata('client_credentials needs client authentication: a client with token_endpoint_auth_method "none" gets tokens for a user only')
  }
  if (ctx === undefined) return
  if (typeof metadata['scope'] !== 'string') {
    metadata['scope'] = scopes.openRegistrationScope
    return
  }
  const refused = scopes.refusedOpenRegistrationScopes(metadata['scope'])
  if (refused.length > 0) {
    throw new errors.InvalidClientMetadata(
      `scope ${refused.join(' ')} cannot be registered for client_credentials without an administrator (allowed: ${scopes.openRegistrationScope || 'none'})`,
    )
  }
}

/**
 * Fetch for what clients point us at: client ID metadata documents and clients' `jwks_uri`.
 * outboundFetch resolves first, refuses private and special-use addresses before connecting, and
 * connects to the address it checked, within one time budget and body cap, following no redirect
 * (oidc-provider's own dispatcher checks only after connecting). The development setting allows
 * private addresses; a test may bring its own fetch (to trust a test CA), which keeps the budget.
 */
function fetchFor(options: ResolvedOptions): NonNullable<Configuration['fetch']> {
  const c = defaults.authServer.clientIdMetadataDocuments
  const timeoutMs = defaults.outbound.clientUrlTimeoutMs
  const allowPrivateAddresses = options.clientIdMetadataDocuments.allowPrivateAddresses
  const guarded = outboundFetch({ configuredBy: 'client', allowPrivateAddresses })
  // oidc-provider may ask for the same failing document twice in one request; a failure is
  // remembered briefly so one request stays within one budget and a target is not hammered.
  const failures = new BoundedMap<string, { error: unknown; until: number }>(c.failureCacheEntries, { evictBeforeSet: true })
  const fetchOnce = (url: string, rest: RequestInit): Promise<Response> => {
    if (options.fetch !== undefined && allowPrivateAddresses) {
      const deadline = AbortSignal.timeout(timeoutMs)
      return options.fetch(url, { ...rest, signal: rest.signal ? AbortSignal.any([rest.signal, deadline]) : deadline })
    }
    return guarded(url, rest)
  }
  return (async (url: URL | string, init: RequestInit & { dispatcher?: unknown }) => {
    const { dispatcher: _dispatcher, ...rest } = init
    const key = String(url)
    const failed = failures.get(key)
    if (failed !== undefined && failed.until > Date.now()) throw failed.error
    try {
      return await fetchOnce(key, rest)
    } catch (error) {
      failures.set(key, { error, until: Date.now() + c.failureCacheSeconds * 1000 })
      throw error
    }
  }) as unknown as NonNullable<Configuration['fetch']>
}
