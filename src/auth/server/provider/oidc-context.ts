import Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'

/**
 * What our patches read of oidc-provider's per-request context (`ctx.oidc`, an `OIDCContext` of
 * lib/helpers/oidc_context.js): the route it matched (`'token'`, `'authorization'`, `'resume'`…),
 * the request's parameters (the token endpoint's `grant_type`, `scope`), the client, the browser
 * session (`accountId`), and the entities loaded so far (`RotatedRefreshToken`).
 */
export type OidcRequest = Pick<KoaContextWithOIDC['oidc'], 'route' | 'params' | 'client' | 'session' | 'entities'>

/** `Provider.ctx`: a static getter over oidc-provider's own AsyncLocalStorage (lib/helpers/als.js). */
const als = Provider as unknown as { readonly ctx?: KoaContextWithOIDC }

/**
 * The request oidc-provider is serving in this async context, or undefined outside one (the CLI's
 * `clients add`, a timer, a request it did not route). oidc-provider enters its AsyncLocalStorage
 * with the Koa context for every request its router matches (`ensureOIDC` in
 * lib/helpers/initialize_app.js), so a model, adapter or client method it calls can find the
 * request it serves: the one way a patch below the configuration's callbacks learns it. A property
 * read: no allocation on the token path.
 */
export function currentContext(): KoaContextWithOIDC | undefined {
  return als.ctx
}

/**
 * `ctx.oidc` of a Koa context: undefined where oidc-provider made none (a request its router did
 * not match, or a middleware's look before the router ran). A property read.
 */
export function oidcOf(ctx: object | undefined): OidcRequest | undefined {
  return (ctx as { readonly oidc?: OidcRequest } | undefined)?.oidc
}

/** True when `oidc` is a token endpoint request of grant type `grantType`. */
export function isTokenRequest(oidc: OidcRequest | undefined, grantType: string): boolean {
  return oidc?.route === 'token' && oidc.params?.['grant_type'] === grantType
}
