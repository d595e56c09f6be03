import type { IncomingHttpHeaders } from 'node:http'
import { ErrorCode, JsonRpcError, type JsonRpcRequest } from '../../../jsonrpc/index.js'
import { decodeHeaderValue } from '../../../schema/header-values.js'
import { HEADERS, NAME_FIELD, isStatelessRevision, revisionOf } from '../../../schema/revisions.js'
import { metaProtocolVersion } from '../../../schema/meta-protocol-version.js'
import { header } from '../header-checks.js'

/**
 * Which era a POST to the MCP endpoint belongs to. The sessionless path takes a request whose
 * MCP-Protocol-Version is a sessionless revision, and one that names no revision we negotiate at
 * initialize but carries the sessionless `_meta` (so an unknown future revision is answered with
 * -32022 and the list of what we speak, and a missing header with -32020). Everything else
 * (initialize, session traffic, requests of older clients) takes the handshake path.
 */
export function isSessionlessRequest(headers: IncomingHttpHeaders, body: unknown): boolean {
  const version = header(headers, HEADERS.protocolVersion)
  if (version !== undefined && isStatelessRevision(version)) return true
  if (version !== undefined && revisionOf(version) !== undefined) return false
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  return metaProtocolVersion((body as { params?: unknown }).params) !== undefined
}

/**
 * The request headers of the sessionless revision against the body: MCP-Protocol-Version equal to
 * the `_meta` version, Mcp-Method equal to the method, Mcp-Name equal to the name or URI the
 * method carries. Any of them missing or different is -32020 (HTTP 400).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
 */
export function checkSessionlessHeaders(headers: IncomingHttpHeaders, request: JsonRpcRequest, protocolVersion: string): void {
  const version = header(headers, HEADERS.protocolVersion)
  if (version === undefined) throw mismatch('the MCP-Protocol-Version header is required')
  if (version !== protocolVersion) throw mismatch(`MCP-Protocol-Version header ${JSON.stringify(version)} does not match _meta protocol version ${JSON.stringify(protocolVersion)}`)
  const method = header(headers, HEADERS.method)
  if (method === undefined) throw mismatch('the Mcp-Method header is required')
  if (method !== request.method) throw mismatch(`Mcp-Method header ${JSON.stringify(method)} does not match method ${JSON.stringify(request.method)}`)
  const field = NAME_FIELD[request.method]
  if (field === undefined) return
  const bodyValue = request.params?.[field]
  if (typeof bodyValue !== 'string') return // the method refuses it with -32602
  const raw = header(headers, HEADERS.name)
  if (raw === undefined) throw mismatch(`the Mcp-Name header is required for ${request.method}`)
  const name = decodeHeaderValue(raw)
  if (name === undefined) throw mismatch('the Mcp-Name header is not valid base64 of UTF-8')
  if (name !== bodyValue) throw mismatch(`Mcp-Name header ${JSON.stringify(name)} does not match params.${field} ${JSON.stringify(bodyValue)}`)
}

function mismatch(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`)
}
