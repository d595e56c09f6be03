import * as client from 'openid-client'
import { isLoopbackUrl } from '../../config/loopback-hosts.js'

/**
 * An openid-client configuration for one client at one server: requests go through `fetchImpl`
 * (injectable, with its timeouts), and plain http is allowed only when `url` (by default the
 * issuer) is a loopback address.
 */
export function clientConfiguration(
  server: client.ServerMetadata,
  clientId: string,
  auth: client.ClientAuth,
  fetchImpl: typeof fetch,
  url: string = server.issuer,
): client.Configuration {
  const config = new client.Configuration(server, clientId, {}, auth)
  config[client.customFetch] = fetchImpl
  if (isLoopbackUrl(url)) client.allowInsecureRequests(config)
  return config
}
