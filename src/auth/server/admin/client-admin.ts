import { randomBytes } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import { AdminError } from './admin-error.js'
import type { GrantAdmin } from './grant-admin.js'

/** A registered client as an operator sees it, without secrets. */
export interface ClientSummary {
  client_id: string
  client_name?: string
  grant_types?: string[]
  redirect_uris?: string[]
  /** From the server's options (not stored: removed from the configuration, not by `remove`). */
  configured: boolean
}

/** A client just added: its secret, when it has one, is shown this once and stored encrypted. */
export interface AddedClient {
  client_id: string
  client_secret?: string
}

/**
 * The registered clients, as an administrator manages them (`mcp-auth clients`): dynamic ones,
 * those cached from metadata documents, those an administrator added, and the configured ones.
 * Plain inputs and results (client metadata uses the wire spelling, RFC 7591 §2).
 */
export class ClientAdmin {
  readonly #provider: Provider
  readonly #clients: OidcAdapter
  readonly #configured: ReadonlyArray<Record<string, unknown> & { client_id: string }>
  readonly #configuredIds: ReadonlySet<string>
  readonly #grants: GrantAdmin

  constructor(deps: {
    provider: Provider
    /** The stored clients (the provider's `Client` model). */
    clients: OidcAdapter
    /** The clients of the server's options. */
    configured: ReadonlyArray<Record<string, unknown> & { client_id: string }>
    grants: GrantAdmin
  }) {
    this.#provider = deps.provider
    this.#clients = deps.clients
    this.#configured = deps.configured
    this.#configuredIds = new Set(deps.configured.map((configured) => configured.client_id))
    this.#grants = deps.grants
  }

  /** Every client: the configured ones not stored, then the stored ones. */
  async list(): Promise<ClientSummary[]> {
    const stored = (await this.#clients.list()).map(({ payload }) => payload)
    const all = [...this.#configured.filter((configured) => !stored.some((payload) => payload['client_id'] === configured.client_id)), ...stored]
    return all.map((payload) => ({
      client_id: String(payload['client_id']),
      ...(typeof payload['client_name'] === 'string' ? { client_name: payload['client_name'] } : {}),
      ...(Array.isArray(payload['grant_types']) ? { grant_types: payload['grant_types'] as string[] } : {}),
      ...(Array.isArray(payload['redirect_uris']) ? { redirect_uris: payload['redirect_uris'] as string[] } : {}),
      configured: this.#configuredIds.has(String(payload['client_id'])),
    }))
  }

  /**
   * Deletes a stored client and ends its grants. A configured client is refused
   * ({@link AdminError} `configured_client`): remove it from the configuration.
   */
  async remove(clientId: string): Promise<{ removed: boolean; grantsEnded: number }> {
    if (this.#configuredIds.has(clientId)) throw new AdminError('configured_client', `${clientId} is a configured client: remove it from the configuration instead`)
    const grantsEnded = await this.#grants.revokeAll({ clientId })
    const found = (await this.#clients.find(clientId)) !== undefined
    if (found) await this.#clients.destroy(clientId)
    return { removed: found, grantsEnded }
  }

  /**
   * Registers a client as an administrator would: validated like any registration, never expired.
   * Generates `client_id` when absent, and a secret for a confidential client. A `client_id`
   * already registered is refused ({@link AdminError} `client_exists`).
   */
  async add(metadata: Record<string, unknown>): Promise<AddedClient> {
    const client: Record<string, unknown> = { client_id: randomBytes(24).toString('base64url'), client_id_issued_at: Math.floor(Date.now() / 1000), ...metadata }
    const method = client['token_endpoint_auth_method'] ?? 'client_secret_basic'
    if ((method === 'client_secret_basic' || method === 'client_secret_post') && client['client_secret'] === undefined) {
      client['client_secret'] = randomBytes(32).toString('base64url')
    }
    await this.#provider.Client.validate(client as never)
    const clientId = String(client['client_id'])
    if ((await this.#provider.Client.find(clientId)) !== undefined) throw new AdminError('client_exists', `a client with client_id ${clientId} already exists`)
    await this.#clients.upsert(clientId, client)
    return { client_id: clientId, ...(typeof client['client_secret'] === 'string' ? { client_secret: client['client_secret'] } : {}) }
  }
}
