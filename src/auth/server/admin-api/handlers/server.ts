import type { AdminOperation } from '../admin-context.js'

/** The operations of the document's `server` tag, by operationId (filled in by their issue part). */
export const serverOperations: Record<string, AdminOperation> = {}
