import type { IncomingMessage } from 'node:http'
import type { AuthInfo } from '../../auth-info/auth-info.js'
import { defaults } from '../../config/defaults.js'
import type { AuditEvent } from '../../observe/audit-event.js'
import type { Observer } from '../../observe/observer.js'
import { requestRecord } from '../../observe/request-record.js'
import type { RefusalFacts } from './bearer-auth.js'
import { requestAddressGroup } from './request-address-group.js'

/** What a resource records of its MCP calls beyond refusals (JSON in `resources[].audit`). */
export interface ToolCallAuditOptions {
  /** Record every allowed `tools/call`, `resources/read` and `prompts/get` too (`mcp.call-allowed`); default false. */
  allowedCalls?: boolean
  /** Tools whose arguments the events carry (as JSON); default none: arguments and results are never recorded. */
  includeArguments?: readonly string[]
}

/** One answered call, as the MCP server reports it (`McpServer.onCallEnded`). */
export interface EndedCallFacts {
  method: string
  /** The tool name, resource URI or prompt name. */
  target: string | undefined
  authInfo: AuthInfo | undefined
  sessionId: string | undefined
  /** `ok`, `isError` (a tool's own failure), `input-required`, or the JSON-RPC error code. */
  status: string | number
  durationMs: number
  arguments: unknown
}

/** The longest arguments text an event carries (a tool given a megabyte must not make a megabyte event). */
const MAX_ARGUMENTS_CHARS = 2000

/**
 * The audit events of a protected MCP endpoint, as an incident review needs them: who (subject,
 * client, address group), which session and resource, which tool (or resource URI, prompt), the
 * scopes the token held and the ones the call needed, the decision and why, and for allowed calls
 * the result status and duration. Refusals always (`mcp.call-refused`, `mcp.rate-limited`,
 * `dpop.replay-refused`); allowed calls when the resource turns them on. Never a token, and
 * never arguments or results unless turned on for that tool.
 *
 * @example
 * const audit = new ToolCallAudit(observer, 'https://mcp.example.com/mcp', { allowedCalls: true })
 */
export class ToolCallAudit {
  readonly #observer: Observer
  readonly #resource: string
  readonly #trustProxy: boolean
  readonly allowedCalls: boolean
  readonly #withArguments: ReadonlySet<string>
  /** Per principal or address group: until when its rate-limit refusals are counted, not recorded. */
  readonly #refusalWindows = new Map<string, { until: number; suppressed: number }>()

  constructor(observer: Observer, resource: string, options: ToolCallAuditOptions = {}, trustProxy = false) {
    this.#observer = observer
    this.#resource = resource
    this.#trustProxy = trustProxy
    this.allowedCalls = options.allowedCalls === true
    this.#withArguments = new Set(options.includeArguments ?? [])
  }

  /** A refusal the bearer check made with facts to record (a tool's missing scope, a replayed DPoP proof). */
  refused(req: IncomingMessage, info: AuthInfo | undefined, facts: RefusalFacts, reason: string): void {
    if (facts.kind === 'dpop-replay') {
      this.#record(req, { subject: facts.subject, clientId: facts.clientId, scopes: undefined }, { type: 'dpop.replay-refused', result: 'refused', reason }, {})
      return
    }
    this.#record(req, info, { type: 'mcp.call-refused', result: 'refused', reason }, { method: 'tools/call', tool: facts.tool, scopesNeeded: facts.needed })
  }

  /**
   * A request refused by the rate limit: `info` when the caller was authenticated. Recorded once
   * per principal (or address group) and Retry-After window: a flood of refused requests must not
   * become a flood of events. The next event says how many were refused in between (`alsoRefused`).
   */
  rateLimited(req: IncomingMessage, info: AuthInfo | undefined, body: unknown, retryAfterSeconds: number): void {
    const key = info === undefined ? `a ${requestAddressGroup(req, this.#trustProxy)}` : `p${info.clientId.length}:${info.clientId}${info.subject ?? ''}`
    const now = Date.now()
    const window = this.#refusalWindows.get(key)
    if (window !== undefined && now < window.until) {
      window.suppressed++
      return
    }
    if (this.#refusalWindows.size >= defaults.observe.limits.maxPrincipals) this.#refusalWindows.clear()
    this.#refusalWindows.set(key, { until: now + retryAfterSeconds * 1000, suppressed: 0 })
    const call = firstCall(body)
    this.#record(
      req,
      info,
      { type: 'mcp.rate-limited', result: 'refused', reason: info === undefined ? 'too many failed authentications' : 'rate limit' },
      { method: call?.method, [targetField(call?.method)]: call?.target, retryAfterSeconds, alsoRefused: window?.suppressed },
    )
  }

  /** An allowed call answered by the MCP server (only when `allowedCalls` is on). */
  callEnded(call: EndedCallFacts): void {
    const details: Record<string, string | number | boolean | readonly string[] | undefined> = {
      method: call.method,
      [targetField(call.method)]: call.target,
      session: call.sessionId,
      status: typeof call.status === 'number' ? `error ${call.status}` : call.status,
      durationMs: Math.round(call.durationMs * 1000) / 1000,
    }
    if (call.method === 'tools/call' && call.target !== undefined && this.#withArguments.has(call.target)) details['arguments'] = argumentsText(call.arguments)
    const info = call.authInfo
    this.#observer.audit({
      type: 'mcp.call-allowed',
      result: 'success',
      actor: { subject: info?.subject, clientId: info?.clientId, channel: 'mcp' },
      ...(info?.subject !== undefined ? { subject: info.subject } : {}),
      ...(info !== undefined ? { clientId: info.clientId, scopes: info.scopes } : {}),
      resource: this.#resource,
      details,
    })
  }

  #record(
    req: IncomingMessage,
    who: { subject?: string | undefined; clientId: string; scopes: readonly string[] | undefined } | undefined,
    what: Pick<AuditEvent, 'type' | 'result' | 'reason'>,
    details: Record<string, string | number | readonly string[] | undefined>,
  ): void {
    const session = req.headers['mcp-session-id']
    const requestId = requestRecord(req)?.id
    this.#observer.audit({
      ...what,
      ...(who !== undefined ? { actor: { subject: who.subject, clientId: who.clientId, channel: 'mcp' as const } } : {}),
      ...(who?.subject !== undefined ? { subject: who.subject } : {}),
      ...(who !== undefined ? { clientId: who.clientId } : {}),
      ...(who?.scopes !== undefined ? { scopes: who.scopes } : {}),
      resource: this.#resource,
      addressGroup: requestAddressGroup(req, this.#trustProxy),
      ...(requestId !== undefined ? { requestId } : {}),
      details: { ...details, session: typeof session === 'string' ? session : undefined },
    })
  }
}

function targetField(method: string | undefined): string {
  return method === 'resources/read' ? 'uri' : method === 'prompts/get' ? 'prompt' : 'tool'
}

/** The first tools/call, resources/read or prompts/get of a parsed body, when it was read. */
function firstCall(body: unknown): { method: string; target: string | undefined } | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue
    const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } }
    if (typeof method !== 'string') continue
    const target = method === 'resources/read' ? params?.uri : params?.name
    return { method, target: typeof target === 'string' ? target : undefined }
  }
  return undefined
}

function argumentsText(args: unknown): string {
  let text: string
  try {
    text = JSON.stringify(args ?? {})
  } catch {
    return '(not serialisable)'
  }
  return text.length > MAX_ARGUMENTS_CHARS ? `${text.slice(0, MAX_ARGUMENTS_CHARS)}…` : text
}
