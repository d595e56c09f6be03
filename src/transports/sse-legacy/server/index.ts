export { LegacySseHandler, type LegacySseOptions } from './legacy-sse-handler.js'
