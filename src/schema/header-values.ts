/**
 * Values of the request headers the stateless revision mirrors from the body (`Mcp-Name`,
 * `Mcp-Param-*`): printable ASCII without surrounding whitespace goes as it is; anything else
 * (non-ASCII, control characters, leading or trailing space) as the Base64 sentinel
 * `=?base64?…?=` of its UTF-8 bytes.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
 */

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/
const PLAIN = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/

/** The header text of a value: plain when it may stand as it is, the Base64 sentinel otherwise. */
export function encodeHeaderValue(value: string): string {
  // a plain value that looks like the sentinel would be decoded by the receiver: encode it too
  if (PLAIN.test(value) && !SENTINEL.test(value)) return value
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

/** A header value that may use the Base64 sentinel form; undefined when malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value)
  if (match === null) return value
  const decoded = Buffer.from(match[1]!, 'base64')
  const text = decoded.toString('utf8')
  // refuse what is not canonical base64 of valid UTF-8
  if (decoded.toString('base64') !== match[1] || Buffer.from(text, 'utf8').compare(decoded) !== 0) return undefined
  return text
}

/** The text a primitive argument is mirrored as; undefined for what is not mirrored (null, objects). */
export function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean') return String(value)
  return undefined
}
