/**
 * `x-mcp-header`: a tool marks an input parameter to be mirrored into an `Mcp-Param-{Name}` request
 * header (2026-07-28), so gateways can route on it without parsing the body. The server checks
 * the header against the arguments; the client sends it, and refuses tools whose annotations
 * break the rules (empty, not a header token, repeated, on a parameter that is not a string,
 * integer or boolean).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
 */
import { encodeHeaderValue, headerText } from './header-values.js'

/** One tool parameter mirrored into an `Mcp-Param-{Name}` header. */
export interface ParamHeader {
  /** The header as the tool names it, `Mcp-Param-<Name>`. */
  name: string
  /** Lower-case header name, `mcp-param-<name>`. */
  header: string
  /** Property names from the arguments object to the parameter. */
  path: readonly string[]
}

interface Annotation {
  mark: unknown
  path: string[]
  property: Record<string, unknown>
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** Types a mirrored parameter may have; `number` is left out, since decimals print differently from one language to the next. */
const MIRRORABLE = new Set(['string', 'integer', 'boolean'])
const cache = new WeakMap<object, readonly ParamHeader[]>()

/**
 * The parameters of an input schema marked with a valid `x-mcp-header`, reached through
 * `properties` only (never `items` or composition keywords). Remembered per schema object.
 */
export function paramHeadersOf(inputSchema: object): readonly ParamHeader[] {
  let found = cache.get(inputSchema)
  if (found === undefined) {
    found = annotations(inputSchema)
      .filter((a) => typeof a.mark === 'string' && TOKEN.test(a.mark))
      .map((a) => ({ name: `Mcp-Param-${a.mark as string}`, header: `mcp-param-${(a.mark as string).toLowerCase()}`, path: a.path }))
    cache.set(inputSchema, found)
  }
  return found
}

/** Why a tool's `x-mcp-header` annotations are invalid, or undefined when they are fine. */
export function paramHeaderProblem(inputSchema: unknown): string | undefined {
  const seen = new Set<string>()
  for (const { mark, path, property } of annotations(inputSchema)) {
    const where = `x-mcp-header of ${path.join('.')}`
    if (typeof mark !== 'string' || mark === '') return `${where} is empty or not a string`
    if (!TOKEN.test(mark)) return `${where} (${JSON.stringify(mark)}) is not a valid header name`
    if (seen.has(mark.toLowerCase())) return `${where} (${JSON.stringify(mark)}) repeats another parameter's header`
    seen.add(mark.toLowerCase())
    const types = Array.isArray(property.type) ? property.type : [property.type]
    if (types.some((type) => typeof type === 'string' && !MIRRORABLE.has(type))) return `${where} is on a parameter that is not a string, integer or boolean`
  }
  return undefined
}

/** The `Mcp-Param-*` request headers, encoded, for a call with these arguments; null and absent values are left out. */
export function paramHeaders(inputSchema: object, args: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const param of paramHeadersOf(inputSchema)) {
    let value: unknown = args
    for (const key of param.path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
    const text = headerText(value)
    if (text !== undefined) out[param.name] = encodeHeaderValue(text)
  }
  return out
}

function annotations(schema: unknown): Annotation[] {
  const out: Annotation[] = []
  walk(schema, [], out, 0)
  return out
}

function walk(schema: unknown, path: string[], out: Annotation[], depth: number): void {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return
  const properties = (schema as { properties?: unknown }).properties
  if (typeof properties !== 'object' || properties === null) return
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== 'object' || property === null) continue
    const record = property as Record<string, unknown>
    if ('x-mcp-header' in record) out.push({ mark: record['x-mcp-header'], path: [...path, name], property: record })
    walk(property, [...path, name], out, depth + 1)
  }
}
