/** One challenge of a `WWW-Authenticate` header: its scheme (lowercased) and parameters. */
export interface Challenge {
  scheme: string
  /** Parameter names lowercased; values unquoted. */
  params: Record<string, string>
  token68?: string
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/
const TOKEN68_ALONE = /^([A-Za-z0-9\-._~+/]+=*)[ \t]*(?:,|$)/

/**
 * Parses a `WWW-Authenticate` value into its challenges (RFC 9110 §11.6.1): several challenges
 * separated by commas, each `scheme [token68 | #auth-param]`, parameter values as tokens or
 * quoted-strings with backslash escapes. Malformed parts end the parse; what was read is kept.
 *
 * @example
 * parseWwwAuthenticate('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"')
 */
export function parseWwwAuthenticate(header: string): Challenge[] {
  const challenges: Challenge[] = []
  let rest = header
  const skip = (): void => {
    rest = rest.replace(/^[ \t]*/, '')
  }
  const skipCommas = (): void => {
    rest = rest.replace(/^[ \t,]*/, '')
  }
  skipCommas()
  while (rest.length > 0) {
    const scheme = TOKEN.exec(rest)?.[0]
    if (scheme === undefined) break
    rest = rest.slice(scheme.length)
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} }
    challenges.push(challenge)
    if (!/^[ \t]/.test(rest)) {
      skipCommas()
      continue
    }
    skip()
    // token68, unless what follows is an auth-param (name "=")
    // A token68 stands alone: end of header or a comma after it (an auth-param has a value).
    const t68 = TOKEN68_ALONE.exec(rest)?.[1]
    if (t68 !== undefined) {
      challenge.token68 = t68
      rest = rest.slice(t68.length)
      skipCommas()
      continue
    }
    // #auth-param until the next challenge (a token not followed by "=")
    for (;;) {
      skip()
      const name = TOKEN.exec(rest)?.[0]
      if (name === undefined) break
      const after = rest.slice(name.length)
      const eq = /^[ \t]*=[ \t]*/.exec(after)
      if (eq === null) break // the next challenge's scheme
      rest = after.slice(eq[0].length)
      let value: string
      if (rest.startsWith('"')) {
        let i = 1
        value = ''
        while (i < rest.length && rest[i] !== '"') {
          if (rest[i] === '\\' && i + 1 < rest.length) i += 1
          value += rest[i]
          i += 1
        }
        if (i >= rest.length) return challenges // unterminated quoted-string
        rest = rest.slice(i + 1)
      } else {
        const token = TOKEN.exec(rest)?.[0]
        if (token === undefined) return challenges
        value = token
        rest = rest.slice(token.length)
      }
      challenge.params[name.toLowerCase()] = value
      skip()
      if (!rest.startsWith(',')) break
      rest = rest.slice(1)
      skip()
      // a comma may also separate this challenge from the next one
      const next = TOKEN.exec(rest)?.[0]
      if (next !== undefined && !/^[ \t]*=/.test(rest.slice(next.length))) break
    }
    skipCommas()
  }
  return challenges
}

/** The Bearer challenge's parameters, if the header has one. */
export function bearerParams(header: string | null | undefined): Record<string, string> | undefined {
  if (!header) return undefined
  return parseWwwAuthenticate(header).find((challenge) => challenge.scheme === 'bearer')?.params
}

/**
 * The parameters of the challenge a resource server answers an MCP client with: its Bearer
 * challenge, else its DPoP one (RFC 9449 §7.1: a DPoP-only resource, or a refusal of a DPoP
 * request, challenges with DPoP, carrying the same `resource_metadata`, `scope` and `error`).
 */
export function challengeParams(header: string | null | undefined): Record<string, string> | undefined {
  if (!header) return undefined
  const challenges = parseWwwAuthenticate(header)
  return (challenges.find((challenge) => challenge.scheme === 'bearer') ?? challenges.find((challenge) => challenge.scheme === 'dpop'))?.params
}
