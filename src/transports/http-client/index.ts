export { connectHttp, type ConnectHttpResult } from './connect-http.js'
export { StreamableHttpClientTransport, type StreamableHttpClientOptions } from '../streamable-http/client/index.js'
export { SseClientTransport, type SseClientOptions } from '../sse-legacy/client/index.js'
export { HttpTransportError, type HttpTransportErrorCode } from '../http/http-transport-error.js'
