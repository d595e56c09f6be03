import type { AdminOperation } from '../admin-context.js'

/** The operations of the document's `grants` tag, by operationId (filled in by their issue part). */
export const grantsOperations: Record<string, AdminOperation> = {}
