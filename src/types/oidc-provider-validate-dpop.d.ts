// oidc-provider's DPoP proof check and replay claim at the token endpoint, used by our own grant
// (the JWT bearer grant) so its tokens are bound exactly as oidc-provider's grants bind theirs.
// The module has no types of its own.
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  import type { KoaContextWithOIDC, Provider } from 'oidc-provider'
  export interface ValidatedDpop {
    thumbprint: string
    jti: string
    iat: number
  }
  /** The request's proof checked (signature, htm, htu, nonce; `ath` with an access token), or undefined when it has none. */
  export default function validateDpop(provider: Provider, ctx: KoaContextWithOIDC, accessToken?: string): Promise<ValidatedDpop | undefined>
  export function checkDpopReplay(provider: Provider, ctx: KoaContextWithOIDC, dPoP: ValidatedDpop, clientId: string): Promise<void>
}
