import type { LoggingLevel } from '../schema/features.js'

/** What a client may change on its session after initialize, which a shared store keeps. */
export interface SharedSessionState {
  subscriptions?: readonly string[] | undefined
  logLevel?: LoggingLevel | undefined
}

/** The methods that change a session's {@link SharedSessionState}: a shared store must learn of them. */
export const SESSION_STATE_METHODS: ReadonlySet<string> = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel'])
