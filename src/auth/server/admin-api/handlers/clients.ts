import type { AdminOperation } from '../admin-context.js'

/** The operations of the document's `clients` tag, by operationId (filled in by their issue part). */
export const clientsOperations: Record<string, AdminOperation> = {}
