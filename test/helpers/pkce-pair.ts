import pkceChallenge from 'pkce-challenge'

/**
 * A PKCE pair (RFC 7636 §4.1–4.2, S256) made by pkce-challenge, not by openid-client: the tests that
 * play a third-party client against our authorization server use it, so the server's PKCE check is
 * proven against an implementation other than the one our own login helper uses (issue 28, item 20).
 */
export async function pkcePair(length?: number): Promise<{ verifier: string; challenge: string }> {
  const pair = await pkceChallenge(length)
  return { verifier: pair.code_verifier, challenge: pair.code_challenge }
}

/** A third-party client's authorization request for a code (`scope` mcp unless given), as a URL on `origin`. */
export function codeRequestUrl(origin: string, request: { clientId: string; redirectUri: string; challenge: string; method?: string; scope?: string }): URL {
  const url = new URL(`${origin}/authorize`)
  url.search = new URLSearchParams({
    client_id: request.clientId,
    response_type: 'code',
    redirect_uri: request.redirectUri,
    scope: request.scope ?? 'mcp',
    code_challenge: request.challenge,
    code_challenge_method: request.method ?? 'S256',
  }).toString()
  return url
}
