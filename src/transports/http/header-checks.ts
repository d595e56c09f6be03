import { defaults } from '../../config/defaults.js'
import type { IncomingHttpHeaders } from 'node:http'
import { parse as parseContentType } from 'content-type'
import { isSupportedProtocolVersion } from '../../schema/versions.js'
import { HttpError } from '../../net/http-error.js'

/** One header's value as a string (the first, when repeated). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** 415 unless the body is declared application/json. */
export function requireJsonContentType(headers: IncomingHttpHeaders): void {
  const value = header(headers, 'content-type')
  if (value === 'application/json') return // the common case, without a parse
  let type: string | undefined
  try {
    type = value === undefined ? undefined : parseContentType(value).type
  } catch {
    type = undefined
  }
  if (type !== 'application/json') throw new HttpError(415, 'Unsupported Media Type: Content-Type must be application/json')
}

/**
 * What an endpoint needs the client to accept, made once per endpoint: the verdicts for the few
 * Accept values clients send are remembered (bounded), so a request costs one map lookup.
 */
export interface AcceptRequirement {
  readonly types: readonly string[]
  readonly verdicts: Map<string, boolean>
}

export function acceptRequirement(types: readonly string[]): AcceptRequirement {
  return { types, verdicts: new Map() }
}

/** 406 unless Accept lists every one of the required types (or a wildcard that covers them). */
export function requireAccept(headers: IncomingHttpHeaders, required: AcceptRequirement): void {
  const raw = header(headers, 'accept') ?? ''
  const { verdicts, types } = required
  const known = verdicts.get(raw)
  if (known === true) return
  if (known === undefined) {
    if (verdicts.size >= defaults.httpChecks.rememberedVerdicts) verdicts.clear()
    try {
      checkAccept(raw, types)
    } catch (error) {
      verdicts.set(raw, false)
      throw error
    }
    verdicts.set(raw, true)
    return
  }
  checkAccept(raw, types)
}

function checkAccept(raw: string, types: readonly string[]): void {
  const accept = raw.toLowerCase()
  const listed = accept.split(',').map((part) => part.split(';')[0]!.trim())
  const covers = (type: string) => listed.includes(type) || listed.includes('*/*') || listed.includes(`${type.split('/')[0]}/*`)
  const missing = types.filter((type) => !covers(type))
  if (missing.length > 0) throw new HttpError(406, `Not Acceptable: the client must accept ${types.join(' and ')}`)
}

/**
 * The MCP-Protocol-Version header: absent → undefined (the caller assumes 2025-03-26 or the
 * negotiated version); present but not one we speak → 400.
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header
 */
export function readProtocolVersionHeader(headers: IncomingHttpHeaders): string | undefined {
  const value = header(headers, 'mcp-protocol-version')
  if (value === undefined) return undefined
  if (!isSupportedProtocolVersion(value)) throw new HttpError(400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(value)}`)
  return value
}
