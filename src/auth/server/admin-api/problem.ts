/**
 * An admin API refusal as RFC 9457 problem details (`application/problem+json`): a stable `type`
 * (a URN of ours, one per kind of refusal), the HTTP status, a short title and what exactly
 * failed in `detail`. One family for the whole API; its one answerer is `answerProblem`.
 * @see https://www.rfc-editor.org/rfc/rfc9457
 */
export class AdminProblem extends Error {
  override name = 'AdminProblem'
  readonly status: number
  /** `urn:mcp-auth:admin:<code>`, e.g. `urn:mcp-auth:admin:not-found`. */
  readonly type: string
  readonly title: string
  /** More members of the problem object (e.g. `errors` of a validation failure). */
  readonly extra: Readonly<Record<string, unknown>>
  /** Headers the answer carries (WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>

  constructor(code: ProblemCode, detail: string, options: ErrorOptions & { extra?: Record<string, unknown>; headers?: Record<string, string>; status?: number } = {}) {
    super(detail, options)
    const known = PROBLEMS[code]
    this.status = options.status ?? known.status
    this.type = `urn:mcp-auth:admin:${code}`
    this.title = known.title
    this.extra = options.extra ?? {}
    this.headers = options.headers ?? {}
  }

  /** The problem object. */
  toJSON(): Record<string, unknown> {
    return { type: this.type, title: this.title, status: this.status, detail: this.message, ...this.extra }
  }
}

/** Every kind of refusal the admin API answers, with its status and title. */
const PROBLEMS = {
  'invalid-request': { status: 400, title: 'The request does not match the API description' },
  unauthenticated: { status: 401, title: 'An administrator’s access token is needed' },
  'login-too-old': { status: 401, title: 'Sign in again for this action' },
  forbidden: { status: 403, title: 'Not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'precondition-failed': { status: 412, title: 'Changed since it was read' },
  'too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'JSON expected' },
  unavailable: { status: 503, title: 'Temporarily unavailable' },
  internal: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>

export type ProblemCode = keyof typeof PROBLEMS
