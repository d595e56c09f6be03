import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'

const METADATA = '/.well-known/oauth-protected-resource'

/**
 * One request listener for several servers on an origin: a path under a server's prefix
 * (`/<name>/…`), or its path-inserted protected resource metadata
 * (`/.well-known/oauth-protected-resource/<name>/…`, RFC 9728 §3.1), goes to that server's
 * handler; anything else to `fallback` (the authorization server and the home page).
 */
export function prefixRouter(routes: readonly { prefix: string; handler: RequestListener }[], fallback: RequestListener): RequestListener {
  const byName = new Map(routes.map((route) => [route.prefix.slice(1), route.handler]))
  return function routeByPrefix(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/'
    const end = url.search(/[?#]/)
    const path = end === -1 ? url : url.slice(0, end)
    const rest = path.startsWith(`${METADATA}/`) ? path.slice(METADATA.length) : path
    const slash = rest.indexOf('/', 1)
    const handler = slash === -1 ? undefined : byName.get(rest.slice(1, slash))
    ;(handler ?? fallback)(req, res)
  }
}
