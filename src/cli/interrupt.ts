import { defaults } from '../config/defaults.js'

/** Exit code of a command ended by Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130

/**
 * Ctrl-C for a command that waits (for the browser to come back from a login, for a tool's
 * answer). The first SIGINT aborts `signal`, so what waits ends cleanly: a login's loopback
 * listener closes, a request tells the server with notifications/cancelled, and the command
 * exits 130 with a line saying what ended. A second SIGINT, or anything still running
 * `interruptGraceMs` later, ends the process at once, as node's default would have.
 */
export function onInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const now = (): never => process.exit(INTERRUPTED_EXIT_CODE)
  const first = (): void => {
    process.once('SIGINT', now)
    setTimeout(now, defaults.cli.interruptGraceMs).unref()
    controller.abort(new Error('interrupted'))
  }
  process.once('SIGINT', first)
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', first)
      process.off('SIGINT', now)
    },
  }
}
