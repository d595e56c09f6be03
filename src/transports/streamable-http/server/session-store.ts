import type { ClientCapabilities, Implementation } from '../../../schema/capabilities.js'

/** What survives of a session outside the process that holds its live connection. */
export interface SessionState {
  id: string
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation | undefined
  /** Who opened it (see `sessionOwner`): nobody else may use it, in any process. */
  owner: string
  createdAt: number
}

/**
 * Where session state is kept. A shared store (Redis, a later issue) lets another process pick a
 * session up: it finds the state here and rebuilds the live session from it instead of answering
 * 404. The in-memory store does the same for handlers of one process that share it; a handler
 * given no store keeps none (its live sessions are in its own memory).
 */
export interface SessionStore {
  get(id: string): Promise<SessionState | undefined> | SessionState | undefined
  set(state: SessionState): Promise<void> | void
  delete(id: string): Promise<void> | void
}

export class InMemorySessionStore implements SessionStore {
  readonly #states = new Map<string, SessionState>()

  get(id: string): SessionState | undefined {
    return this.#states.get(id)
  }

  set(state: SessionState): void {
    this.#states.set(state.id, state)
  }

  delete(id: string): void {
    this.#states.delete(id)
  }
}
