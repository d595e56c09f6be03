import type { AdminOperation } from '../admin-context.js'
import { accountOperations } from './accounts.js'
import { auditOperations } from './audit.js'
import { clientsOperations } from './clients.js'
import { grantsOperations } from './grants.js'
import { resourcesOperations } from './resources.js'
import { serverOperations } from './server.js'

/** Every operation of the admin API, by the `operationId` the document gives it. */
export const ADMIN_OPERATIONS: Readonly<Record<string, AdminOperation>> = {
  ...accountOperations,
  ...auditOperations,
  ...clientsOperations,
  ...grantsOperations,
  ...resourcesOperations,
  ...serverOperations,
}
