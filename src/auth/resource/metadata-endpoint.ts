import type { IncomingMessage, ServerResponse } from 'node:http'
import { noteRoute } from '../../observe/request-record.js'
import { METADATA_CORS_HEADERS } from './cors.js'
import { protectedResourceMetadataByPath, type ProtectedResourceMetadataOptions } from './protected-resource-metadata.js'

/**
 * Serves RFC 9728 metadata for one resource at `/.well-known/oauth-protected-resource{path}`
 * (path-aware, §3.1) and at the root `/.well-known/oauth-protected-resource`, with open CORS.
 * Given several (the endpoints of one server: `/mcp`, `/sse`, `/rest`), each at its own path, its
 * `resource` the endpoint's URL (§3.3), and the first at the root too.
 * Returns false for any other path so the caller can route on.
 */
export function protectedResourceMetadataEndpoint(
  options: ProtectedResourceMetadataOptions | readonly ProtectedResourceMetadataOptions[],
): (req: IncomingMessage, res: ServerResponse, path: string) => boolean {
  const documents = protectedResourceMetadataByPath(options)
  return function serveMetadata(req, res, requestPath) {
    const body = documents.get(requestPath)
    if (body === undefined) return false
    // one of the documents' own paths: a template as it is
    noteRoute(req, requestPath)
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...METADATA_CORS_HEADERS, 'access-control-allow-headers': 'mcp-protocol-version' }).end()
      return true
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD, OPTIONS' }).end()
      return true
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300', ...METADATA_CORS_HEADERS })
    res.end(req.method === 'HEAD' ? undefined : body)
    return true
  }
}
