import type { SendOptions } from '../protocol/transport.js'

/**
 * Send options of a server-wide notification (list changes, resource updates) raised while the
 * server shares its notifications over a bus: every process sends its own copy to the sessions
 * whose streams it holds, so an HTTP transport delivers such a message only on a stream it holds
 * here and never forwards it to the process holding the session's stream (that one sends it).
 */
export interface ServerWideSendOptions extends SendOptions {
  readonly serverWide: true
}

export const SERVER_WIDE: ServerWideSendOptions = Object.freeze({ serverWide: true })

export function isServerWide(options: SendOptions | undefined): boolean {
  return (options as Partial<ServerWideSendOptions> | undefined)?.serverWide === true
}
