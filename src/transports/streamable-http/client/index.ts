export { StreamableHttpClientTransport, type StreamableHttpClientOptions } from './streamable-http-client-transport.js'
