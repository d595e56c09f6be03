import { defaults } from '../../config/defaults.js'

/** Headers an MCP browser client sends and must read (MCP transports, RFC 6750 challenges, RFC 9449 proofs and nonces). */
const ALLOW_HEADERS = 'authorization, dpop, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name'
const EXPOSE_HEADERS = 'www-authenticate, dpop-nonce, mcp-session-id, mcp-protocol-version'

/**
 * CORS for the MCP endpoint: a browser-based client may read the challenge and the session
 * headers. The response only echoes the Origin; whether that origin may use the endpoint at all
 * is still the transport's Origin check.
 */
export function mcpCorsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined || origin === '') return {}
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS, vary: 'Origin' }
}

/**
 * The answer to a CORS preflight on the MCP endpoint. Tool parameters mirrored into headers
 * (2026-07-28 `Mcp-Param-*`) have names only the tool knows: those the preflight asks for are allowed.
 */
export function mcpPreflightHeaders(origin: string, requested?: string): Record<string, string> {
  const params = (requested ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name))
  return {
    ...mcpCorsHeaders(origin),
    'access-control-allow-methods': 'GET, POST, DELETE',
    'access-control-allow-headers': params.length === 0 ? ALLOW_HEADERS : `${ALLOW_HEADERS}, ${params.join(', ')}`,
    'access-control-max-age': String(defaults.resourceServer.corsMaxAgeSeconds),
  }
}

/** Metadata documents are public: any origin may read them. */
export const METADATA_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-max-age': String(defaults.resourceServer.corsMaxAgeSeconds),
}
