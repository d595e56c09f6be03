/**
 * Verified credentials of the caller, as an auth layer in front of an HTTP transport found them.
 * The MCP engine only carries it to handlers; it never looks inside.
 *
 * It lives in a leaf room of its own because both sides use it: the resource side (auth/resource)
 * builds it from a checked token, the MCP side (protocol/context.ts re-exports it) hands it to
 * handlers, and neither side may import the other.
 */
export interface AuthInfo {
  /** The raw access token. Never log it. */
  token: string
  clientId: string
  scopes: string[]
  subject?: string
  audience?: string | string[]
  /** Seconds since the epoch. */
  expiresAt?: number
  claims?: Record<string, unknown>
  extra?: Record<string, unknown>
}
