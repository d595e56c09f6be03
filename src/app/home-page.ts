import { noteRoute } from '../observe/request-record.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { protectedResourceMetadataUrl } from '../auth/resource/resource-uri.js'
import { defaults } from '../config/defaults.js'
import { resolveBranding, type BrandingInput, type PageBranding } from '../views/branding.js'
import { escapeHtml, pageHeaders, renderView } from '../views/render-view.js'

export interface HomePageOptions {
  /** The public origin, e.g. http://localhost:4000 (the issuer and the resources' origin). */
  origin: string
  /** The protected MCP server's resource identifier (its Streamable HTTP URL). */
  resource: string
  /**
   * The operator's product name (the page's heading and title), logo and colours: the
   * authorization server's `branding`, so the home page looks like its login and consent pages.
   */
  branding?: BrandingInput
  /** Where the documentation is read; without one the page names the package's README and docs/. */
  docsUrl?: string
}

/** What the home page lists, the links of its JSON form as well. */
export interface HomePageLinks {
  name: string
  endpoints: { streamableHttp: string; sse: string; statelessJson: string }
  metadata: { authorizationServer: string; openidConfiguration: string; protectedResource: string; jwks: string }
  login: string
  docs?: string
}

const ENDPOINT_LABELS: ReadonlyArray<[keyof HomePageLinks['endpoints'], string]> = [
  ['streamableHttp', 'Streamable HTTP (MCP 2025-03-26 and later)'],
  ['sse', 'HTTP+SSE (MCP 2024-11-05)'],
  ['statelessJson', 'stateless JSON (one request, one answer)'],
]
const METADATA_LABELS: ReadonlyArray<[keyof HomePageLinks['metadata'], string]> = [
  ['authorizationServer', 'authorization server metadata (RFC 8414)'],
  ['openidConfiguration', 'OpenID Connect discovery'],
  ['protectedResource', 'protected resource metadata of the MCP server (RFC 9728)'],
  ['jwks', 'the keys tokens are signed with (JWKS)'],
]

/** The links of the home page, from the origin and the configured paths. */
export function homePageLinks(options: HomePageOptions): HomePageLinks {
  const origin = new URL(options.origin).origin
  const links: HomePageLinks = {
    name: options.branding?.productName ?? defaults.branding.productName,
    endpoints: {
      streamableHttp: options.resource,
      sse: `${origin}${defaults.legacySse.ssePath}`,
      statelessJson: `${origin}${defaults.statelessJson.path}`,
    },
    metadata: {
      authorizationServer: `${origin}/.well-known/oauth-authorization-server`,
      openidConfiguration: `${origin}/.well-known/openid-configuration`,
      protectedResource: protectedResourceMetadataUrl(options.resource),
      jwks: `${origin}${defaults.authServer.routes.jwks}`,
    },
    login: `npx mcp-auth login ${options.resource}`,
  }
  if (options.docsUrl !== undefined) links.docs = options.docsUrl
  return links
}

/** A URL as text that wraps after its origin and at each `/` of its path, never inside the host. */
function breakable(url: string): string {
  const { origin } = new URL(url)
  const parts = url.slice(origin.length).split('/').map(escapeHtml)
  return `${escapeHtml(origin)}<wbr>${parts.join('/<wbr>')}`
}

function item(url: string, label: string): string {
  return `<li><a href="${escapeHtml(url)}"><code>${breakable(url)}</code></a><br><span class="muted">${escapeHtml(label)}</span></li>`
}

function render(links: HomePageLinks, branding: PageBranding): string {
  const docs =
    links.docs === undefined
      ? 'The <code>README.md</code> and <code>docs/</code> of the mcp-auth package: configuration, clients, deployment.'
      : `<a href="${escapeHtml(links.docs)}">${escapeHtml(links.docs)}</a>`
  return renderView(
    'home',
    'Home',
    {
      productName: links.name,
      origin: new URL(links.endpoints.streamableHttp).origin,
      mcpUrl: breakable(links.endpoints.streamableHttp),
      endpointItems: ENDPOINT_LABELS.map(([key, label]) => item(links.endpoints[key], label)).join(''),
      metadataItems: METADATA_LABELS.map(([key, label]) => item(links.metadata[key], label)).join(''),
      docs,
    },
    branding,
  )
}

/** Whether the client asked for JSON before HTML (`Accept: application/json`). */
function wantsJson(accept: string | undefined): boolean {
  if (accept === undefined) return false
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase())
  const json = types.indexOf('application/json')
  if (json === -1) return false
  const html = types.indexOf('text/html')
  return html === -1 || json < html
}

/**
 * The origin's home page at `/`: what this server is, its MCP endpoints, its metadata documents,
 * how clients log in, where the docs are. HTML in the pages' layout, or the same links as JSON for
 * a client that asks `Accept: application/json`; GET and HEAD (others: 405). Framework-neutral:
 * returns false for any other path, so the caller passes the request on.
 *
 * @example
 * const home = homePage({ origin: 'http://localhost:4000', resource: 'http://localhost:4000/mcp' })
 * http.createServer((req, res) => home(req, res) || next(req, res))
 */
export function homePage(options: HomePageOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const links = homePageLinks(options)
  const branding = resolveBranding(options.branding)
  const headers = pageHeaders(branding)
  const html = render(links, branding)
  const json = JSON.stringify(links)
  return (req, res) => {
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    if ((query === -1 ? url : url.slice(0, query)) !== '/') return false
    noteRoute(req, '/')
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed: GET or HEAD this page\n')
      return true
    }
    const asJson = wantsJson(req.headers.accept)
    const body = asJson ? json : html
    res.writeHead(200, {
      ...headers,
      'content-type': asJson ? 'application/json' : 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      vary: 'Accept',
    })
    res.end(req.method === 'HEAD' ? undefined : body)
    return true
  }
}
