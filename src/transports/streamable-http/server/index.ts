export { StreamableHttpHandler, type StreamableHttpOptions } from './streamable-http-handler.js'
export { streamableHttpKoa } from './koa-middleware.js'
export { InMemoryEventStore, type EventStore, type StoredEvents } from '../../../sessions/event-store.js'
export { InMemorySessionStore, type SessionStore, type SessionState, type AdmitVerdict, type SharedSessionLimits } from '../../../sessions/session-store.js'
