import type { ProgressParams, ProgressToken } from '../schema/features.js'
import type { PendingRequests } from './correlation.js'
import { LocalError } from './errors.js'

/**
 * A progress reporter for one inbound request: a no-op when the caller sent no progress token,
 * otherwise it sends `notifications/progress` and insists that progress increases.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress
 */
export function createProgressReporter(
  token: ProgressToken | undefined,
  send: (params: ProgressParams) => Promise<void>,
): (progress: number, total?: number, message?: string) => Promise<void> {
  let last = -Infinity
  return async (progress, total, message) => {
    if (token === undefined) return
    if (!Number.isFinite(progress) || progress <= last) {
      throw new RangeError(`progress must increase: ${progress} after ${last}`)
    }
    last = progress
    const params: ProgressParams = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    await send(params)
  }
}

/** The progress token of a request, when it carries a valid one. */
export function readProgressToken(meta: Record<string, unknown> | undefined): ProgressToken | undefined {
  const token = meta?.progressToken
  return typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token)) ? token : undefined
}

/**
 * An inbound `notifications/progress` for one of our pending requests: handed to its onprogress
 * (restarting its timeout when it asked for that) when the value increases; anything else is
 * returned as the problem to report.
 */
export function deliverProgress(pending: PendingRequests, params: ProgressParams): Error | undefined {
  const token = params.progressToken
  const entry = typeof token === 'number' ? pending.get(token) : undefined
  if (entry?.onprogress === undefined) return undefined
  if (typeof params.progress !== 'number' || (entry.lastProgress !== undefined && params.progress <= entry.lastProgress)) {
    return new LocalError('invalid_progress', `ignored non-increasing progress ${params.progress} for request ${token}`)
  }
  entry.lastProgress = params.progress
  entry.timer?.touch()
  entry.onprogress(params)
  return undefined
}
