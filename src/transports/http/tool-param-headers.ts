import type { IncomingHttpHeaders } from 'node:http'
import { ErrorCode, JsonRpcError } from '../../jsonrpc/index.js'
import { decodeHeaderValue, headerText } from '../../schema/header-values.js'
import type { ParamHeader } from '../../schema/x-mcp-header.js'
import { header } from './header-checks.js'

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
    if (decoded !== headerText(value)) throw mismatch(`the ${param.header} header does not match the value of ${param.path.join('.')}`)
  }
}

function mismatch(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`)
}
