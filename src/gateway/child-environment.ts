import type { Principal } from './principal.js'

/** The variables that tell a child whom it serves; an operator's per-account value never replaces them. */
export const PRINCIPAL_VARIABLES = ['MCP_AUTH_SUBJECT', 'MCP_AUTH_CLIENT_ID', 'MCP_AUTH_SCOPE'] as const

/**
 * What a child learns of its principal from its environment: the operator's per-account values
 * for the subject, then `MCP_AUTH_SUBJECT`, `MCP_AUTH_CLIENT_ID` and `MCP_AUTH_SCOPE` (the
 * scopes of the token that started it). A shared child (one for everyone) gets none of them.
 */
export function principalEnvironment(principal: Principal | undefined, values: Readonly<Record<string, string>> = {}): Record<string, string> {
  if (principal === undefined) return {}
  return {
    ...values,
    MCP_AUTH_SUBJECT: principal.subject ?? '',
    MCP_AUTH_CLIENT_ID: principal.clientId,
    MCP_AUTH_SCOPE: principal.scope,
  }
}
