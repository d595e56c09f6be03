import type Provider from 'oidc-provider'
import { errors } from 'oidc-provider'
import { currentContext } from './oidc-context.js'

/**
 * oidc-provider accepts a client secret in the Basic header or in the form whichever the client
 * registered. We hold a client to its registered `token_endpoint_auth_method`: a
 * `client_secret_basic` client cannot authenticate with `client_secret_post` and the other way
 * round (RFC 7591 §2: the method is part of the registration).
 */
export function bindClientSecretMethod(provider: Provider): void {
  const prototype = (provider.Client as unknown as { prototype: { compareClientSecret(actual: string): Promise<boolean>; clientAuthMethod: string } }).prototype
  const compare = prototype.compareClientSecret
  prototype.compareClientSecret = function compareClientSecret(this: typeof prototype, actual: string) {
    const method = this.clientAuthMethod
    if (method === 'client_secret_basic' || method === 'client_secret_post') {
      const ctx = currentContext()
      const used = /^basic /i.test(ctx?.req.headers.authorization ?? '') ? 'client_secret_basic' : 'client_secret_post'
      if (used !== method) throw new errors.InvalidClientAuth(`the client must authenticate with ${method}, as registered`)
    }
    return compare.call(this, actual)
  }
}
