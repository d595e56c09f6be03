import type { Context } from 'koa'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type Provider from 'oidc-provider'
import { AUDIT_GRANT_TYPES, type AuditEvent } from '../../../observe/audit-event.js'
import type { Observer } from '../../../observe/observer.js'
import { requestRecord } from '../../../observe/request-record.js'
import { clientAddress } from '../middleware/client-address.js'
import { grantDigest } from '../stores/grant-revocations.js'
import { ASSERTION_REUSED } from './jwt-bearer-grant.js'

/** oidc-provider's (and our adapter's) description of a refresh token used twice. */
const REFRESH_TOKEN_REUSED = 'refresh token already used'

/** An oidc-provider refusal: its OAuth code, its fixed description, and the detail it keeps to the server. */
interface ProviderError {
  error?: string
  error_description?: string
  error_detail?: string
}

/** The refusal's own words (oidc-provider's errors keep them in `error_detail`, custom ones in the description): matched, never recorded. */
function whyRefused(error: ProviderError): string | undefined {
  return error.error_detail ?? error.error_description
}

/** oidc-provider's error events at endpoints where a replayed proof or client assertion is refused. */
const ERROR_EVENTS = ['grant.error', 'introspection.error', 'revocation.error', 'userinfo.error', 'pushed_authorization_request.error'] as const

/** What a token is, as oidc-provider's models carry it (only the fields an event names). */
interface TokenFacts {
  accountId?: string
  scope?: string
  resourceServer?: { identifier(): string }
}

/** Who, where from and which request, for every event of a request oidc-provider answered. */
export function requestFacts(ctx: Context): Pick<AuditEvent, 'requestId' | 'addressGroup'> {
  const id = requestRecord(ctx.req)?.id
  return { addressGroup: clientAddress(ctx), ...(id !== undefined ? { requestId: id } : {}) }
}

/**
 * Records the security events oidc-provider decides, once each, from its own events: a token
 * issued (`grant.success`) or refused (`grant.error`, the OAuth error code as reason), a refresh
 * token presented again (it revokes the grant: `refresh-token.reuse-detected`), a grant revoked at
 * the revocation endpoint, at logout or on a code replayed (`grant.revoked`; an administrator's
 * revocation is recorded by GrantAdmin, with its actor), a client registered by DCR, and a DPoP
 * proof or client assertion used twice (the endpoints' error events). Never the token response,
 * a token, a code or an assertion: identifiers and the grant's digest only.
 *
 * @see https://github.com/panva/node-oidc-provider/blob/main/docs/events.md
 */
export function auditProviderEvents(provider: Provider, observer: Observer): void {
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const { oidc } = ctx
    const entities = oidc.entities as Record<string, TokenFacts | undefined>
    const token = entities['AccessToken'] ?? entities['ClientCredentials']
    const resource = token?.resourceServer?.identifier()
    observer.audit({
      type: 'token.issued',
      result: 'success',
      ...(oidc.client !== undefined ? { clientId: oidc.client.clientId } : {}),
      ...(token?.accountId !== undefined ? { subject: token.accountId } : {}),
      ...(resource !== undefined ? { resource } : {}),
      ...(typeof token?.scope === 'string' && token.scope !== '' ? { scopes: token.scope.split(' ') } : {}),
      ...requestFacts(ctx),
      details: { grant_type: grantType(ctx), refresh_token: entities['RefreshToken'] !== undefined && grantType(ctx) !== 'client_credentials' },
    })
  })

  provider.on('grant.error', (ctx: KoaContextWithOIDC, error: ProviderError) => {
    // a rotated refresh token presented again (after its grace): oidc-provider revoked the grant, or
    // lost the race to consume it to another request (adapter-factory), and refuses it with this
    if (whyRefused(error) === REFRESH_TOKEN_REUSED) {
      const refreshToken = (ctx.oidc.entities as Record<string, TokenFacts | undefined>)['RefreshToken'] as (TokenFacts & { grantId?: string }) | undefined
      observer.audit({
        type: 'refresh-token.reuse-detected',
        result: 'refused',
        reason: 'invalid_grant',
        ...(ctx.oidc.client !== undefined ? { clientId: ctx.oidc.client.clientId } : {}),
        ...(refreshToken?.accountId !== undefined ? { subject: refreshToken.accountId } : {}),
        ...requestFacts(ctx),
        ...(refreshToken?.grantId !== undefined ? { details: { grant: grantDigest(refreshToken.grantId) } } : {}),
      })
    }
    observer.audit({
      type: 'token.refused',
      result: 'refused',
      reason: error.error ?? 'invalid_request',
      ...(ctx.oidc?.client !== undefined ? { clientId: ctx.oidc.client.clientId } : {}),
      ...requestFacts(ctx),
      details: { grant_type: grantType(ctx) },
    })
  })

  for (const name of ERROR_EVENTS) {
    provider.on(name as 'grant.error', (ctx: KoaContextWithOIDC, error: ProviderError) => {
      const replay = replayOf(error)
      if (replay === undefined) return
      observer.audit({
        type: replay,
        result: 'refused',
        reason: error.error ?? 'invalid_request',
        ...(ctx.oidc?.client !== undefined ? { clientId: ctx.oidc.client.clientId } : {}),
        ...requestFacts(ctx),
        details: { endpoint: name.slice(0, -'.error'.length), ...(name === 'grant.error' ? { grant_type: grantType(ctx) } : {}) },
      })
    })
  }

  provider.on('grant.revoked', (ctx: KoaContextWithOIDC | undefined, grantId: string) => {
    // GrantAdmin announces an administrator's revocation without a context and records it itself
    if (ctx?.oidc === undefined) return
    const { oidc } = ctx
    const entities = oidc.entities as Record<string, TokenFacts | undefined>
    const route = oidc.route
    const reason =
      route === 'token'
        ? grantType(ctx) === 'refresh_token'
          ? 'refresh-token-reuse'
          : 'code-reuse'
        : route === 'revocation'
          ? 'revoked-by-client'
          : route === 'end_session' || route === 'end_session_confirm'
            ? 'logout'
            : route
    const subject = (entities['RefreshToken'] ?? entities['AuthorizationCode'] ?? entities['AccessToken'])?.accountId ?? oidc.session?.accountId
    const facts = {
      ...(oidc.client !== undefined ? { clientId: oidc.client.clientId } : {}),
      ...(subject !== undefined ? { subject } : {}),
      ...requestFacts(ctx),
    }
    observer.audit({
      type: 'grant.revoked',
      result: 'success',
      reason,
      ...(route === 'revocation' && oidc.client !== undefined ? { actor: { clientId: oidc.client.clientId, channel: 'http' } } : {}),
      ...facts,
      details: { grant: grantDigest(grantId) },
    })
  })

  provider.on('registration_create.success', (ctx: KoaContextWithOIDC, client: { clientId: string; scope?: string; tokenEndpointAuthMethod?: string }) => {
    observer.audit({
      type: 'client.registered',
      result: 'success',
      clientId: client.clientId,
      ...(typeof client.scope === 'string' && client.scope !== '' ? { scopes: client.scope.split(' ') } : {}),
      ...requestFacts(ctx),
      details: { origin: 'dynamic', ...(client.tokenEndpointAuthMethod !== undefined ? { token_endpoint_auth_method: client.tokenEndpointAuthMethod } : {}) },
    })
  })
  // a dynamically registered client deleting itself at its registration management endpoint (RFC 7592)
  provider.on('registration_delete.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    observer.audit({
      type: 'client.removed',
      result: 'success',
      clientId: client.clientId,
      actor: { clientId: client.clientId, channel: 'http' },
      ...requestFacts(ctx),
      details: { origin: 'dynamic' },
    })
  })
}

/**
 * What ClientLastUse calls on a metadata-document client's first use: its registration, as far
 * as the server knows one (CIMD clients register by being used), as `client.registered`.
 */
export function auditMetadataDocumentClient(observer: Observer): (ctx: KoaContextWithOIDC, clientId: string) => void {
  return (ctx, clientId) => observer.audit({ type: 'client.registered', result: 'success', clientId, ...requestFacts(ctx), details: { origin: 'metadata-document' } })
}

/** The grant type of a token request, known ones by name (outside input: never an unbounded value). */
function grantType(ctx: KoaContextWithOIDC): string {
  const value = ctx.oidc?.params?.['grant_type']
  return typeof value === 'string' && AUDIT_GRANT_TYPES.has(value) ? value : 'other'
}

/** The replay event a refusal is, by oidc-provider's (and our JWT bearer grant's) fixed descriptions. */
function replayOf(error: ProviderError): 'dpop.replay-refused' | 'assertion.replay-refused' | undefined {
  const description = whyRefused(error)
  if (description === undefined) return undefined
  if (description === 'DPoP proof JWT Replay detected') return 'dpop.replay-refused'
  // private_key_jwt / client_secret_jwt assertions, client attestation proofs, our JWT bearer grant's assertions
  if (description.endsWith('tokens must only be used once') || description === ASSERTION_REUSED) return 'assertion.replay-refused'
  return undefined
}
