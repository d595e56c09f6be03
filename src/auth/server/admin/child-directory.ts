/** One child process (or upstream session) the gateway runs for a principal, as the admin API lists it. */
export interface ChildInfo {
  /** Unique across the deployment's nodes: what `DELETE /children/{id}` takes. */
  readonly id: string
  /** The token's subject it serves (absent: the shared child, or no login in front). */
  readonly subject?: string
  /** The client whose token started it (empty for the shared child). */
  readonly clientId: string
  /** The server it runs: the mount's MCP path (`/mcp`, `/<name>/mcp`). */
  readonly server: string
  /** When it started (ms since the epoch). */
  readonly startedAt: number
  /** `running`, or `ending` once it was told to stop. */
  readonly state: 'running' | 'ending'
}

/**
 * The gateway's children as the authorization server sees them: the seam between the admin API
 * (`GET /children`, `DELETE /children/{id}`) and the gateway, which implements it and hands it to
 * `createAuthorizationServer` as `children`. Only this process's children: on Redis the node
 * registry publishes each node's and carries an end request to the node that runs the child.
 */
export interface ChildDirectory {
  /** The children running in this process now. */
  list(): ChildInfo[]
  /**
   * Ends a child of this process (stdin closed, then SIGTERM, then SIGKILL); the session it served
   * gets a new child on its next request, as after a crash. False when none has this id here.
   */
  end(id: string): Promise<boolean>
  /**
   * Optional: calls `listener` when a child starts or ends, so that on Redis this node publishes
   * its list at once instead of at its next heartbeat. Returns what stops the calls.
   */
  watch?(listener: () => void): () => void
}
