import { defaults } from '../../../config/defaults.js'
import type { ResolvedResource } from '../options.js'

/** The OpenID Connect scopes' meaning, as a person reads it. */
const OIDC_SCOPE_TEXT: Readonly<Record<string, string>> = Object.freeze({
  openid: 'Confirm your identity',
  profile: 'See your name and username',
  email: 'See your email address',
  offline_access: 'Stay signed in until you revoke access (refresh tokens)',
})

/** What an undescribed scope is said to be: that it is unknown, never its bare name. */
export const UNDESCRIBED_SCOPE = 'Access this server did not describe'

/**
 * What `scope` lets an application do, for the consent page: the description of the first of
 * `resources` that describes it, else the built-in one (`defaults.authServer.scopeDescriptions`,
 * the OpenID Connect scopes), else {@link UNDESCRIBED_SCOPE}. Own properties only: a scope named
 * `constructor` or `__proto__` finds no inherited text.
 */
export function describeScope(scope: string, resources: readonly ResolvedResource[]): string {
  for (const resource of resources) {
    const text = resource.scopeDescriptions
    if (text !== undefined && Object.hasOwn(text, scope)) return text[scope]!
  }
  if (Object.hasOwn(OIDC_SCOPE_TEXT, scope)) return OIDC_SCOPE_TEXT[scope]!
  const builtIn = defaults.authServer.scopeDescriptions
  if (Object.hasOwn(builtIn, scope)) return builtIn[scope]!
  return UNDESCRIBED_SCOPE
}
