import type { IncomingMessage } from 'node:http'
import { requestRecord } from './request-record.js'

/** Longest method or target name kept on the record: a client sends them, a line stays a line. */
const MAX_NAME = 128

/**
 * Notes the MCP method of a request (the first message of a batch) and, for `tools/call` and
 * `prompts/get`, the name it calls, on the request's record, from a body the transport parsed
 * anyway. A resource's URI is not noted: it may carry what its server put in it. Nothing else of
 * the body (arguments, results) is read.
 */
export function noteMcpCall(req: IncomingMessage, body: unknown): void {
  const record = requestRecord(req)
  if (record === undefined || record.mcpMethod !== undefined) return
  const message = Array.isArray(body) ? body[0] : body
  if (typeof message !== 'object' || message === null) return
  const method = (message as { method?: unknown }).method
  if (typeof method !== 'string') return
  record.mcpMethod = method.length > MAX_NAME ? method.slice(0, MAX_NAME) : method
  if (method !== 'tools/call' && method !== 'prompts/get') return
  const name = (message as { params?: { name?: unknown } }).params?.name
  if (typeof name === 'string') record.mcpTarget = name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name
}
