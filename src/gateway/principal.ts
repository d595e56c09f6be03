import type { AuthInfo } from '../auth-info/auth-info.js'

/**
 * Whom a child serves: the verified token's issuer, subject and client. Two principals never share
 * a child (a stdio server holds one user's state, often that user's credentials), except in
 * `--shared` mode, which the operator chooses for servers that keep none.
 */
export interface Principal {
  /** Stable identity of the principal: issuer, subject and client. */
  readonly key: string
  readonly subject: string | undefined
  readonly clientId: string
  /** The scopes of the token that started the child (space-separated). */
  readonly scope: string
}

const ANONYMOUS: Principal = { key: '["anonymous"]', subject: undefined, clientId: '', scope: '' }

/** The principal of a request; one anonymous principal when no auth layer runs in front. */
export function principalOf(authInfo: AuthInfo | undefined): Principal {
  if (authInfo === undefined) return ANONYMOUS
  const issuer = typeof authInfo.claims?.['iss'] === 'string' ? authInfo.claims['iss'] : ''
  return {
    key: JSON.stringify([issuer, authInfo.subject ?? '', authInfo.clientId]),
    subject: authInfo.subject,
    clientId: authInfo.clientId,
    scope: authInfo.scopes.join(' '),
  }
}

/** How a log line names a principal: subject and client, never the token. */
export function describePrincipal(principal: Principal): string {
  if (principal === ANONYMOUS) return 'anonymous'
  return `subject=${principal.subject ?? '-'} client=${principal.clientId}`
}
