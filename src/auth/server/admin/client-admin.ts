import { defaults } from '../../../config/defaults.js'
import { randomBytes } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { OidcAdapter, OidcPayload } from '../../../storage/types.js'
import type { BlockedClients } from '../stores/blocked-clients.js'
import { AdminAudit } from './admin-audit.js'
import { AdminError } from './admin-error.js'
import { isMetadataDocumentId } from './metadata-document-id.js'
import type { ClientLastUse, ClientLastUseEntry } from './client-last-use.js'
import type { GrantAdmin } from './grant-admin.js'

/** Where a client came from. */
export type ClientOrigin = 'built-in' | 'configured' | 'administrator' | 'dynamic' | 'metadata-document'

/** The server's own clients (the console): listed as `built-in`, never removed or blocked here. */
const BUILT_IN: ReadonlySet<string> = new Set([defaults.authServer.admin.console.clientId])
const configuredOrigin = (clientId: string): ClientOrigin => (BUILT_IN.has(clientId) ? 'built-in' : 'configured')

/** The mark an administrator's client carries in its stored record (oidc-provider ignores it: not client metadata). */
const ORIGIN_FIELD = 'mcp_auth_origin'

/** A registered client as an operator sees it, without secrets. */
export interface ClientSummary {
  client_id: string
  client_name?: string
  grant_types?: string[]
  redirect_uris?: string[]
  /** From the server's options (not stored: removed from the configuration, not by `remove`). */
  configured: boolean
  origin: ClientOrigin
  scope?: string
  token_endpoint_auth_method?: string
  /** Epoch ms. */
  createdAt?: number
  /** Epoch ms, to the hour (see ClientLastUse). */
  lastUsedAt?: number
  blocked: boolean
  /** Epoch ms. */
  blockedAt?: number
}

/** A client just added: its secret, when it has one, is shown this once and stored encrypted. */
export interface AddedClient {
  client_id: string
  client_secret?: string
}

export { isMetadataDocumentId }

/**
 * The registered clients, as an administrator manages them (`mcp-auth clients`, the admin API):
 * dynamic ones, those known by their metadata documents (seen used, or blocked), those an
 * administrator added, and the configured ones; each with its origin, last use and whether it is
 * blocked. Plain inputs and results (client metadata uses the wire spelling, RFC 7591 §2).
 */
export class ClientAdmin {
  readonly #provider: Provider
  readonly #clients: OidcAdapter
  readonly #configured: ReadonlyMap<string, Record<string, unknown> & { client_id: string }>
  readonly #grants: GrantAdmin
  readonly #blocked: BlockedClients
  readonly #lastUse: ClientLastUse
  readonly #audit: AdminAudit

  constructor(deps: {
    provider: Provider
    /** The stored clients (the provider's `Client` model). */
    clients: OidcAdapter
    /** The clients of the server's options. */
    configured: ReadonlyArray<Record<string, unknown> & { client_id: string }>
    grants: GrantAdmin
    blocked: BlockedClients
    lastUse: ClientLastUse
    /** Records the client events (default: nothing recorded). */
    audit?: AdminAudit
  }) {
    this.#provider = deps.provider
    this.#clients = deps.clients
    this.#configured = new Map(deps.configured.map((configured) => [configured.client_id, configured]))
    this.#grants = deps.grants
    this.#blocked = deps.blocked
    this.#lastUse = deps.lastUse
    this.#audit = deps.audit ?? AdminAudit.none()
  }

  /**
   * Every client, by client_id: the configured ones, the stored ones, and those known by their
   * metadata documents (used or blocked). Reads the stored clients whole (the `Client` model has
   * no pages; open registration is capped, see registrationLimits).
   */
  async list(): Promise<ClientSummary[]> {
    const [stored, uses] = await Promise.all([this.#clients.list(), this.#lastUse.list()])
    const lastUse = new Map(uses.map((entry) => [entry.clientId, entry]))
    const all = new Map<string, ClientSummary>()
    for (const [clientId, configured] of this.#configured) all.set(clientId, this.#summary(configured, configuredOrigin(clientId), lastUse.get(clientId)))
    for (const { id, payload } of stored) if (!all.has(id)) all.set(id, this.#summary(payload, originOf(id, payload), lastUse.get(id)))
    const unstored = [...uses.map((entry) => entry.clientId), ...this.#blocked.list().map((entry) => entry.clientId)]
    for (const clientId of unstored) {
      if (all.has(clientId) || !isMetadataDocumentId(clientId)) continue
      all.set(clientId, this.#documentSummary(clientId, lastUse.get(clientId)))
    }
    return [...all.values()].sort((a, b) => (a.client_id < b.client_id ? -1 : a.client_id > b.client_id ? 1 : 0))
  }

  /** One client; `AdminError` `unknown_client` when there is none with this id. */
  async get(clientId: string): Promise<ClientSummary> {
    const configured = this.#configured.get(clientId)
    const lastUse = await this.#lastUse.get(clientId)
    if (configured !== undefined) return this.#summary(configured, configuredOrigin(clientId), lastUse)
    const payload = await this.#clients.find(clientId)
    if (payload !== undefined) return this.#summary(payload, originOf(clientId, payload), lastUse)
    if (isMetadataDocumentId(clientId) && (lastUse !== undefined || this.#blocked.isBlocked(clientId))) return this.#documentSummary(clientId, lastUse)
    throw new AdminError('unknown_client', `no client has the client_id ${clientId}`)
  }

  /**
   * Deletes a stored client and ends its grants (a metadata-document client: forgets it and ends
   * its grants; block it to keep it out). A configured client is refused ({@link AdminError}
   * `configured_client`): remove it from the configuration.
   */
  async remove(clientId: string): Promise<{ removed: boolean; grantsEnded: number }> {
    if (BUILT_IN.has(clientId)) throw new AdminError('configured_client', `${clientId} is the server's own console: it cannot be removed`)
    if (this.#configured.has(clientId)) throw new AdminError('configured_client', `${clientId} is a configured client: remove it from the configuration instead`)
    const grantsEnded = await this.#grants.revokeAll({ clientId }, 'client-removed')
    const found = (await this.#clients.find(clientId)) !== undefined
    if (found) await this.#clients.destroy(clientId)
    const used = (await this.#lastUse.get(clientId)) !== undefined
    if (used) await this.#lastUse.forget(clientId)
    if (found || used || grantsEnded > 0) this.#audit.record({ type: 'client.removed', result: 'success', clientId, details: { grants_ended: grantsEnded } })
    return { removed: found || used, grantsEnded }
  }

  /**
   * Blocks a client on every node: it gets no authorization and no token from now on, and its
   * grants end (their tokens are refused at once). A client not known here is refused
   * (`unknown_client`), except a metadata-document client_id, which may be blocked before its
   * first visit. Blocking a blocked client changes nothing.
   */
  async block(clientId: string): Promise<{ client: ClientSummary; grantsEnded: number }> {
    if (BUILT_IN.has(clientId))
      throw new AdminError('configured_client', `${clientId} is the server's own console: it cannot be blocked (an administrator who should not sign in loses the role instead)`)
    if (!isMetadataDocumentId(clientId)) await this.get(clientId)
    const wasBlocked = this.#blocked.isBlocked(clientId)
    await this.#blocked.block(clientId)
    const grantsEnded = await this.#grants.revokeAll({ clientId }, 'client-blocked')
    if (!wasBlocked) this.#audit.record({ type: 'client.blocked', result: 'success', clientId, details: { grants_ended: grantsEnded } })
    return { client: await this.get(clientId), grantsEnded }
  }

  /** Lets a blocked client in again (its ended grants stay ended); `unknown_client` for a client not known here. */
  async unblock(clientId: string): Promise<ClientSummary> {
    const wasBlocked = this.#blocked.isBlocked(clientId)
    if (!wasBlocked) await this.get(clientId)
    await this.#blocked.unblock(clientId)
    if (wasBlocked) this.#audit.record({ type: 'client.unblocked', result: 'success', clientId })
    if (!isMetadataDocumentId(clientId)) return this.get(clientId)
    // a metadata-document client known only by its block: nothing left to show but the id
    return this.get(clientId).catch(() => this.#documentSummary(clientId, undefined))
  }

  /**
   * Registers a client as an administrator would: validated like any registration, never expired,
   * marked as an administrator's. Generates `client_id` when absent, and a secret for a
   * confidential client. Metadata oidc-provider refuses is `invalid`; a `client_id` already
   * registered is refused ({@link AdminError} `client_exists`).
   */
  async add(metadata: Record<string, unknown>): Promise<AddedClient> {
    const { [ORIGIN_FIELD]: _ignored, ...given } = metadata
    const client: Record<string, unknown> = { client_id: randomBytes(24).toString('base64url'), client_id_issued_at: Math.floor(Date.now() / 1000), ...given }
    const method = client['token_endpoint_auth_method'] ?? 'client_secret_basic'
    if ((method === 'client_secret_basic' || method === 'client_secret_post') && client['client_secret'] === undefined) {
      client['client_secret'] = randomBytes(32).toString('base64url')
    }
    await this.#provider.Client.validate(client as never).catch((error: { error_description?: string; message: string }) => {
      throw new AdminError('invalid', `invalid client metadata: ${error.error_description ?? error.message}`, { cause: error })
    })
    const clientId = String(client['client_id'])
    if (this.#configured.has(clientId) || (await this.#clients.find(clientId)) !== undefined)
      throw new AdminError('client_exists', `a client with client_id ${clientId} already exists`)
    await this.#clients.upsert(clientId, { ...client, [ORIGIN_FIELD]: 'administrator' })
    this.#audit.record({
      type: 'client.registered',
      result: 'success',
      clientId,
      ...(typeof client['scope'] === 'string' ? { scopes: client['scope'].split(' ') } : {}),
      details: { origin: 'administrator', token_endpoint_auth_method: String(method) },
    })
    return { client_id: clientId, ...(typeof client['client_secret'] === 'string' ? { client_secret: client['client_secret'] } : {}) }
  }

  #summary(payload: Record<string, unknown>, origin: ClientOrigin, lastUse: ClientLastUseEntry | undefined): ClientSummary {
    const clientId = String(payload['client_id'])
    const blockedAt = this.#blocked.blockedAt(clientId)
    return {
      client_id: clientId,
      ...(typeof payload['client_name'] === 'string' ? { client_name: payload['client_name'] } : {}),
      // oidc-provider's defaults when the metadata names none (RFC 7591 §2)
      grant_types: Array.isArray(payload['grant_types']) ? (payload['grant_types'] as string[]) : ['authorization_code'],
      redirect_uris: Array.isArray(payload['redirect_uris']) ? (payload['redirect_uris'] as string[]) : [],
      configured: origin === 'configured' || origin === 'built-in',
      origin,
      ...(typeof payload['scope'] === 'string' ? { scope: payload['scope'] } : {}),
      token_endpoint_auth_method: typeof payload['token_endpoint_auth_method'] === 'string' ? payload['token_endpoint_auth_method'] : 'client_secret_basic',
      ...(typeof payload['client_id_issued_at'] === 'number' ? { createdAt: payload['client_id_issued_at'] * 1000 } : {}),
      ...(lastUse !== undefined ? { lastUsedAt: lastUse.at } : {}),
      blocked: blockedAt !== undefined,
      ...(blockedAt !== undefined ? { blockedAt } : {}),
    }
  }

  /** A metadata-document client: what it said about itself when last used. */
  #documentSummary(clientId: string, lastUse: ClientLastUseEntry | undefined): ClientSummary {
    return this.#summary({ token_endpoint_auth_method: 'none', ...lastUse, client_id: clientId }, 'metadata-document', lastUse)
  }
}

function originOf(clientId: string, payload: OidcPayload): ClientOrigin {
  if (payload[ORIGIN_FIELD] === 'administrator') return 'administrator'
  return isMetadataDocumentId(clientId) ? 'metadata-document' : 'dynamic'
}
