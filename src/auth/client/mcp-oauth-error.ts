/** Local errors of the login helper (never sent on the wire). */
export class McpOAuthError extends Error {
  override name = 'McpOAuthError'
  constructor(
    readonly code: 'discovery' | 'registration' | 'authorization' | 'token' | 'step_up' | 'cancelled' | 'dpop',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}
