export { StdioServerTransport, type StdioServerTransportOptions } from './stdio-server-transport.js'
export { StdioClientTransport, type StdioClientTransportOptions, type ChildExitStatus } from './stdio-client-transport.js'
export { StdioError, type StdioErrorCode } from './stdio-error.js'
export { childEnvironment } from './child-environment.js'
