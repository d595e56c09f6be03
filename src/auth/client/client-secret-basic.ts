import type { ClientAuth } from 'openid-client'

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 §2.3.1, Appendix B). */
const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+')

/**
 * HTTP Basic client authentication as RFC 6749 §2.3.1 writes it: id and secret form-encoded,
 * then base64. (openid-client's own helper also escapes characters such as `-`, which some
 * servers compare without decoding.)
 */
export function clientSecretBasic(clientSecret: string): ClientAuth {
  return (_server, client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${formEncode(client.client_id)}:${formEncode(clientSecret)}`).toString('base64')}`)
  }
}
