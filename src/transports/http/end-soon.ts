import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Ends HTTP responses in batches, one batch per event-loop turn. Answers completed while the loop
 * works through a burst of readable sockets go out back to back once the burst is handled
 * (`setImmediate` runs right after the poll phase), so the peer wakes once per burst instead of
 * once per answer; on loopback and on virtual machines that wake-up is a large part of what a
 * small answer costs. The delay added is the rest of the current loop turn.
 *
 * A batch needs answers on several connections: while consecutive answers go to the same
 * connection (one client, one request at a time) each is ended at once, which spares the
 * scheduling a batch costs.
 *
 * Call `res.writeHead` first, synchronously: the response then counts as answered
 * (`headersSent`) for everyone else while its end waits here.
 */
export function endSoon(res: ServerResponse, body?: string): void {
  const socket = res.socket
  if (pending.length === 0 && socket === lastSocket) {
    res.end(body)
    return
  }
  lastSocket = socket
  if (pending.push(res, body) === 2) setImmediate(flush)
}

/** Alternating response and body: no tuple allocated per answer. */
let pending: Array<ServerResponse | string | undefined> = []
let lastSocket: Socket | null = null

function flush(): void {
  const batch = pending
  pending = []
  for (let i = 0; i < batch.length; i += 2) {
    const res = batch[i] as ServerResponse
    // a client that went away, or a path that already ended the response, needs nothing more
    if (res.writableEnded || res.destroyed) continue
    try {
      res.end(batch[i + 1] as string | undefined)
    } catch (error) {
      // one broken response must not leave the rest of the batch unanswered
      res.destroy(error as Error)
    }
  }
}
