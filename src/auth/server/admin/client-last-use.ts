import type Provider from 'oidc-provider'
import { isMetadataDocumentId } from './metadata-document-id.js'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { OidcAdapter } from '../../../storage/types.js'
import { BoundedMap } from '../../../collections/bounded-map.js'
import { oidcOf } from '../provider/oidc-context.js'

/** The model (an expiring record per client) that holds last uses. */
export const CLIENT_LAST_USE_MODEL = 'ClientLastUse'

/**
 * A client's last use as stored: when (coarse), and for a client known by its metadata document
 * (never stored as a client) what it said about itself when last seen.
 */
export interface ClientLastUseEntry {
  clientId: string
  /** Epoch ms. */
  at: number
  client_name?: string
  grant_types?: string[]
  redirect_uris?: string[]
  token_endpoint_auth_method?: string
}

/**
 * When each client was last used (an authorization or a token request succeeded), to the hour:
 * written at most once per `intervalMs` per client and node, so the token path costs one
 * in-memory lookup and no store write. Which clients a node wrote lately is a bounded map (the
 * oldest forgotten first: a forgotten client is written once more on its next use). Each record
 * expires `retentionSeconds` after the use it notes: clients known only by their metadata
 * documents (anyone can publish one) cannot grow the store for good, and a removed client's
 * record goes away by itself.
 */
export class ClientLastUse {
  readonly #adapter: OidcAdapter
  readonly #intervalMs: number
  readonly #retentionSeconds: number
  readonly #now: () => number
  readonly #written: BoundedMap<string, number>

  constructor(adapter: OidcAdapter, options: { intervalMs: number; max: number; retentionSeconds: number; now?: () => number }) {
    this.#adapter = adapter
    this.#intervalMs = options.intervalMs
    this.#retentionSeconds = options.retentionSeconds
    this.#now = options.now ?? Date.now
    this.#written = new BoundedMap(options.max, { refreshOnSet: true })
  }

  /**
   * Records uses the provider announces (authorizations and token requests). `onFirstUse` hears a
   * client known by its metadata document used for the first time (or again after its record
   * expired): for such a client that is its registration, told once across nodes (an atomic create).
   */
  listen(provider: Provider, onFirstUse?: (ctx: KoaContextWithOIDC, clientId: string) => void): void {
    const used = (ctx: KoaContextWithOIDC): void => {
      const client = oidcOf(ctx)?.client
      if (client === undefined) return
      const pending = this.used(client, onFirstUse === undefined || !isMetadataDocumentId(client.clientId) ? undefined : () => onFirstUse(ctx, client.clientId))
      if (pending !== undefined) void pending.catch((error: unknown) => provider.emit('server_error', ctx, error))
    }
    provider.on('authorization.success', used)
    provider.on('grant.success', used)
  }

  /** Notes a use; a store write (returned) only when this node wrote none for the client within the interval. */
  used(
    client: { clientId: string; clientName?: unknown; grantTypes?: unknown; redirectUris?: unknown; tokenEndpointAuthMethod?: unknown },
    onFirst?: () => void,
  ): Promise<void> | undefined {
    const now = this.#now()
    const last = this.#written.get(client.clientId)
    if (last !== undefined && now - last < this.#intervalMs) return undefined
    this.#written.set(client.clientId, now)
    const entry: ClientLastUseEntry = {
      clientId: client.clientId,
      at: now,
      ...(typeof client.clientName === 'string' ? { client_name: client.clientName } : {}),
      ...(Array.isArray(client.grantTypes) ? { grant_types: client.grantTypes as string[] } : {}),
      ...(Array.isArray(client.redirectUris) ? { redirect_uris: client.redirectUris as string[] } : {}),
      ...(typeof client.tokenEndpointAuthMethod === 'string' ? { token_endpoint_auth_method: client.tokenEndpointAuthMethod } : {}),
    }
    if (onFirst === undefined) return this.#adapter.upsert(client.clientId, { ...entry }, this.#retentionSeconds)
    return this.#adapter.create(client.clientId, { ...entry }, this.#retentionSeconds).then((created) => {
      if (created) return onFirst()
      return this.#adapter.upsert(client.clientId, { ...entry }, this.#retentionSeconds)
    })
  }

  async get(clientId: string): Promise<ClientLastUseEntry | undefined> {
    return (await this.#adapter.find(clientId)) as ClientLastUseEntry | undefined
  }

  /** Every client's last use (one record per client used within the retention). */
  async list(): Promise<ClientLastUseEntry[]> {
    return (await this.#adapter.list()).map(({ payload }) => payload as unknown as ClientLastUseEntry)
  }

  async forget(clientId: string): Promise<void> {
    this.#written.delete(clientId)
    await this.#adapter.destroy(clientId)
  }
}
