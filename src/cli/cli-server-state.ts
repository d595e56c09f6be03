import type { Server, ServerResponse } from 'node:http'

/** What `createCliServer` keeps per server for its drain: open responses, and how far the drain is. */
export interface CliServerState {
  open: Set<ServerResponse>
  /** /healthz answers 503 "draining" (the node still serves everything else). */
  draining: boolean
  /** Every response says `Connection: close`: the node is about to close its connections. */
  closing: boolean
  /** When /healthz was last asked (ms since the epoch; 0 for never): is a balancer following? */
  lastHealthCheck: number
}
export const cliServerStates = new WeakMap<Server, CliServerState>()
