import type { ServerResponse } from 'node:http'

const marked = new WeakSet<ServerResponse>()

/**
 * Marks the answer to a POST as a stream that lasts as long as its client stays (a 2026-07-28
 * `subscriptions/listen` stream): a server that drains closes it with a retry hint instead of
 * waiting for it, as it does GET streams. A POST's other answers carry work in flight and are
 * waited for.
 */
export function markOpenEndedStream(res: ServerResponse): void {
  marked.add(res)
}

/** Whether `res` is a GET stream under way or a stream marked by {@link markOpenEndedStream}. */
export function isOpenEndedStream(res: ServerResponse): boolean {
  return res.headersSent && (res.req.method === 'GET' || marked.has(res))
}
