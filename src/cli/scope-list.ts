import { UsageError } from './command.js'

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

/** A space-separated scope list from the command line; a bad token is a usage error. */
export function parseScopes(text: string): string[] {
  const scopes = text.split(' ').filter((scope) => scope !== '')
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope))
  if (bad !== undefined) throw new UsageError(`not a scope token: ${JSON.stringify(bad)}`)
  return scopes
}
