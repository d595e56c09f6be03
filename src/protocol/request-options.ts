import type { RequestId } from '../jsonrpc/index.js'
import type { ProgressParams } from '../schema/features.js'

/** Per-call options of an outgoing request. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects the call. */
  signal?: AbortSignal
  /** Overrides the endpoint's request timeout for this call. */
  timeoutMs?: number
  /** Restart the timeout on each progress notification (still bounded by maxTotalTimeoutMs). */
  resetTimeoutOnProgress?: boolean
  maxTotalTimeoutMs?: number
  /** Ask for progress: the request carries `_meta.progressToken` and each update lands here. */
  onprogress?: (progress: ProgressParams) => void
  /** The inbound request this one is made on behalf of (routes it on HTTP transports). */
  relatedRequestId?: RequestId
  /** Request headers for this call, on transports that have them (see SendOptions.headers). */
  headers?: Readonly<Record<string, string>>
}
