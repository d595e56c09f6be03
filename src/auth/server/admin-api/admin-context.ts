import type { AuditTrail } from '../../../observe/audit-event.js'
import type { Account, AccountStore } from '../stores/account-store.js'
import type { AccountValuesStore } from '../stores/account-values-store.js'
import type { ResourceStore } from '../stores/resource-store.js'
import type { ResolvedResource } from '../options.js'
import type { Administration } from '../admin/create-administration.js'
import type { KeyAdmin } from '../admin/key-admin.js'
import type { NodeRegistry } from '../admin/node-registry.js'
import type { AdminAuthority, AdminCaller } from './admin-caller.js'

/** What the admin API's operations act on: the server's administration core and stores. */
export interface AdminServices {
  readonly administration: Administration
  readonly accounts: AccountStore
  readonly accountValues: AccountValuesStore
  readonly resources: ResourceStore
  /** The resources of the server's options (read-only here: changed in the configuration). */
  readonly configuredResources: readonly ResolvedResource[]
  readonly authority: AdminAuthority
  /** The issuer, for links the API hands out (set-password links). */
  readonly issuer: URL
  /** The deployment's nodes (one without Redis) and the gateway children each runs. */
  readonly nodes: NodeRegistry
  /** The signing keys: what the deployment signs with, their rotation. */
  readonly keys: KeyAdmin
  /** What the storage backend says of itself cheaply (`GET /state`'s `storage`). */
  storageState(): Promise<Record<string, unknown>>
  /** Where the server keeps its security events (`GET /audit`): the observer's trail, once attached. */
  auditTrail(): AuditTrail | undefined
  /** Deletes an account with everything that is its (grants, gateway values). */
  deleteAccount(account: Account, rev?: number): Promise<{ grantsEnded: number }>
}

/** One admin API request, as an operation sees it: validated against the OpenAPI document. */
export interface AdminRequest {
  readonly caller: AdminCaller
  /** Path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>
  /** Query parameters, typed by the document (coerced). */
  readonly query: Readonly<Record<string, unknown>>
  /** The JSON body, when the operation takes one. */
  readonly body: unknown
  /** `If-Match`, when sent. */
  readonly ifMatch: string | undefined
  readonly services: AdminServices
}

/** What an operation answers. */
export interface AdminResponse {
  /** Default 200 (204 without a body). */
  status?: number
  body?: unknown
  /** A strong ETag (quoted) for the representation. */
  etag?: string
  headers?: Record<string, string>
}

/** An operation of the admin API, registered under its `operationId`. */
export type AdminOperation = (request: AdminRequest) => Promise<AdminResponse>
