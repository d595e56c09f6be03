import { defaults } from '../config/defaults.js'
import type { ChildFactory } from './child-factory.js'
import { ChildLink } from './child-link.js'
import { describePrincipal } from './principal.js'
import type { PrincipalTokenSigner } from './principal-token-signer.js'
import { principalTokens } from './principal-tokens.js'
import { UpstreamTransport, type UpstreamTransportKind } from './upstream-transport.js'

export interface HttpUpstreamChildrenOptions {
  /** The upstream MCP server's endpoint (it has no auth of its own; it trusts the principal JWT). */
  url: string
  /** Default `auto`: Streamable HTTP, falling back to HTTP+SSE on a 4xx to the first POST. */
  transport?: UpstreamTransportKind
  /** The header that carries the principal JWT. Default `defaults.gateway.upstreamHeader`. */
  header?: string
  /** Signs the principal JWTs with the authorization server's keys. */
  signer: PrincipalTokenSigner
  /** Lifetime of a principal JWT (s). Default `defaults.gateway.principalTokenTtlSeconds`. */
  principalTokenTtlSeconds?: number
  /** Where the gateway's remarks on the upstream sessions go, a line each. */
  log: (line: string) => void
}

/**
 * Children that are sessions with an upstream HTTP MCP server (Streamable HTTP or HTTP+SSE), one
 * per stateful session or stateless principal as for stdio children. The upstream never sees the
 * caller's token (MCP authorization forbids passing it through): every request to it carries,
 * in `header`, a short-lived JWT about the principal (`iss` our issuer, `aud` the upstream URL,
 * `sub`, `client_id`, `scope`), signed with our keys and verifiable at our JWKS. The shared child
 * (`--shared`) serves no one in particular and sends no principal JWT.
 *
 * @example
 * const factory = httpUpstreamChildren({ url: 'http://127.0.0.1:9000/mcp', signer: { sign: (c) => as.signPrincipalToken({ ...c }) }, log: console.error })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 */
export function httpUpstreamChildren(options: HttpUpstreamChildrenOptions): ChildFactory {
  const url = new URL(options.url)
  const header = options.header ?? defaults.gateway.upstreamHeader
  return async (principal, { exclusive }) => {
    const token = principal === undefined ? undefined : principalTokens(options.signer, principal, url.href, options.principalTokenTtlSeconds)
    const upstreamFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers)
      // the transport is ours and sets none; kept as a guard: the caller's token never goes upstream
      headers.delete('authorization')
      if (token !== undefined) headers.set(header, await token())
      return fetch(input, { ...init, headers })
    }
    const who = principal === undefined ? 'shared' : describePrincipal(principal)
    const log = (line: string) => options.log(`[upstream ${url.href} ${who}] ${line}`)
    const transport = new UpstreamTransport(url, { kind: options.transport ?? 'auto', fetch: upstreamFetch, log })
    const link = new ChildLink(transport, {
      ...(exclusive !== undefined ? { exclusive } : {}),
      log,
      describeExit: () => transport.failure ?? `the upstream MCP server ${url.href} ended the session`,
    })
    await link.start()
    return link
  }
}
