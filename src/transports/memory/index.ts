export { InMemoryTransport } from './in-memory-transport.js'
