/**
 * Builds a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9110 §11.6.1). Every value
 * goes out as a quoted-string with `\` and `"` escaped; control characters (CR, LF…) are refused
 * so no value can inject a header.
 *
 * @example
 * bearerChallenge({ error: 'insufficient_scope', scope: 'mcp:admin', resource_metadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' })
 * // Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="https://…"
 */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  return challenge('Bearer', params)
}

/**
 * A challenge of any scheme (`DPoP` for RFC 9449 §7.1), with the same quoting rules.
 *
 * @example
 * challenge('DPoP', { error: 'invalid_dpop_proof', algs: 'ES256 PS256' })
 * // DPoP error="invalid_dpop_proof", algs="ES256 PS256"
 */
export function challenge(scheme: 'Bearer' | 'DPoP', params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = []
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new TypeError(`invalid challenge parameter name ${JSON.stringify(name)}`)
    parts.push(`${name}=${quote(value)}`)
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`
}

function quote(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000A-\u001F\u007F]/.test(value)) throw new TypeError('challenge values must not contain control characters')
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}
