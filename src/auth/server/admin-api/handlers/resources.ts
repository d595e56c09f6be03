import type { AdminOperation } from '../admin-context.js'

/** The operations of the document's `resources` tag, by operationId (filled in by their issue part). */
export const resourcesOperations: Record<string, AdminOperation> = {}
