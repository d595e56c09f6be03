export { SseClientTransport, type SseClientOptions } from './sse-client-transport.js'
