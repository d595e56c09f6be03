import type { EndpointOptions } from '../protocol/endpoint.js'
import { LocalError } from '../protocol/errors.js'
import { assertPeerDeclared } from '../protocol/lifecycle.js'
import type { ClientCapabilities, InitializeResult } from '../schema/capabilities.js'
import { clientMayNotify, serverSupports } from '../schema/methods.js'
import { allowsBatch } from '../schema/versions.js'
import type { McpClientOptions } from './client-options.js'

/**
 * The rules a client endpoint sends by: before the initialize (or server/discover) result only
 * `initialize`, `ping` and `server/discover`; after it, only methods the server declared a capability for (refused locally with
 * LocalError('capability_not_supported')), and only notifications this client declared.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#operation
 */
export function clientEndpointOptions(options: McpClientOptions, declared: ClientCapabilities, server: () => InitializeResult | undefined): EndpointOptions {
  const endpointOptions: EndpointOptions = {
    assertCanRequest: (method) => {
      if (method === 'initialize' || method === 'ping' || method === 'server/discover') return
      const capabilities = server()?.capabilities
      if (capabilities === undefined) throw new LocalError('invalid_state', `cannot send ${method} before initialize has completed`)
      assertPeerDeclared(method, serverSupports(method, capabilities), 'server')
    },
    assertCanNotify: (method) => {
      if (!clientMayNotify(method, declared)) {
        throw new LocalError('capability_not_supported', `this client did not declare the capability for ${method}`)
      }
    },
    acceptsBatch: () => allowsBatch(server()?.protocolVersion),
  }
  // copy only what was given: an explicit undefined would replace the endpoint's default
  const { requestTimeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs } = options
  if (requestTimeoutMs !== undefined) endpointOptions.requestTimeoutMs = requestTimeoutMs
  if (resetTimeoutOnProgress !== undefined) endpointOptions.resetTimeoutOnProgress = resetTimeoutOnProgress
  if (maxTotalTimeoutMs !== undefined) endpointOptions.maxTotalTimeoutMs = maxTotalTimeoutMs
  return endpointOptions
}
