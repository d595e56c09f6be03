import type { IncomingHttpHeaders } from 'node:http'
import { ErrorCode, JsonRpcError } from '../../jsonrpc/index.js'
import { decodeHeaderValue } from './stateless-headers.js'
import { header } from './header-checks.js'

/** One tool parameter mirrored into an `Mcp-Param-{Name}` header (`x-mcp-header` in its schema). */
export interface ParamHeader {
  /** Lower-case header name, `mcp-param-<name>`. */
  header: string
  /** Property names from the arguments object to the parameter. */
  path: readonly string[]
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const cache = new WeakMap<object, readonly ParamHeader[]>()

/**
 * The parameters of a tool's input schema marked with `x-mcp-header`, reached through
 * `properties` only (never `items` or composition keywords), as the revision allows. Annotations
 * that are not a valid header token are ignored. Remembered per schema object.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
 */
export function paramHeadersOf(inputSchema: object): readonly ParamHeader[] {
  let found = cache.get(inputSchema)
  if (found === undefined) {
    const list: ParamHeader[] = []
    walk(inputSchema, [], list, 0)
    found = list
    cache.set(inputSchema, found)
  }
  return found
}

function walk(schema: unknown, path: string[], out: ParamHeader[], depth: number): void {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return
  const properties = (schema as { properties?: unknown }).properties
  if (typeof properties !== 'object' || properties === null) return
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== 'object' || property === null) continue
    const mark = (property as Record<string, unknown>)['x-mcp-header']
    if (typeof mark === 'string' && TOKEN.test(mark)) out.push({ header: `mcp-param-${mark.toLowerCase()}`, path: [...path, name] })
    walk(property, [...path, name], out, depth + 1)
  }
}

/**
 * Each mirrored parameter against its header: a value in the body needs the header, with the
 * same value (after Base64 sentinel decoding); a header without the value, or with another value,
 * is refused. -32020 (HTTP 400) otherwise.
 */
export function checkParamHeaders(headers: IncomingHttpHeaders, params: readonly ParamHeader[], args: unknown): void {
  for (const param of params) {
    let value: unknown = args
    for (const key of param.path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
    const raw = header(headers, param.header)
    if (value === undefined || value === null) {
      if (raw !== undefined) throw mismatch(`${param.header} is sent but the parameter ${param.path.join('.')} is not in the arguments`)
      continue
    }
    if (raw === undefined) throw mismatch(`the ${param.header} header is required: the tool mirrors ${param.path.join('.')} into it`)
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) throw mismatch(`the ${param.header} header is not valid base64 of UTF-8`)
    if (decoded !== asHeaderText(value)) throw mismatch(`the ${param.header} header does not match the value of ${param.path.join('.')}`)
  }
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function mismatch(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`)
}
