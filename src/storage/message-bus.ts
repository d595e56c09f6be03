// The message bus moved to sessions/ (issue 29): it is shared state between nodes that the MCP side
// uses too. Re-exported here so the storage side (and the authorization server) keeps its import.
export { InProcessMessageBus, type MessageBus } from '../sessions/message-bus.js'
