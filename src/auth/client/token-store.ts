import { AsyncLocalStorage } from 'node:async_hooks'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { acquireFileLock, StorageLockedError } from '../../storage/file-lock.js'
import { ensurePrivateDir, readJsonFile, writePrivateFile } from '../../storage/private-file.js'
import type { StoredDpopKey } from './dpop.js'

/** A client registration at one authorization server (never reused at another). */
export interface StoredClient {
  client_id: string
  client_secret?: string
  redirect_uris?: string[]
  /** How it authenticates at the token endpoint (from its registration). */
  token_endpoint_auth_method?: string
  /** How the client got its id: configuration, a metadata document, or dynamic registration. */
  source: 'configured' | 'metadata-document' | 'dynamic'
}

/** Tokens for one (authorization server, MCP server) pair. */
export interface StoredTokens {
  access_token: string
  refresh_token?: string
  /** Epoch seconds. */
  expires_at?: number
  scope?: string
  token_type?: string
  /** The client the tokens were issued to (absent in entries stored before issue 28): a refresh token is only tried by that client. */
  client_id?: string
}

/**
 * Where the login helper keeps registrations and tokens, both keyed by the authorization server's
 * `issuer` (as its validated metadata names it), so nothing is presented to another server.
 */
export interface TokenStore {
  getClient(issuer: string): Promise<StoredClient | undefined>
  setClient(issuer: string, client: StoredClient): Promise<void>
  getTokens(issuer: string, resource: string): Promise<StoredTokens | undefined>
  setTokens(issuer: string, resource: string, tokens: StoredTokens): Promise<void>
  deleteTokens(issuer: string, resource: string): Promise<void>
  /** Every (issuer, resource) pair with tokens. */
  list(): Promise<Array<{ issuer: string; resource: string; tokens: StoredTokens }>>
  /**
   * Runs `fn` holding an exclusive lock, across processes too, so that only one of many
   * concurrent refreshes redeems a rotating refresh token.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /**
   * The client's DPoP key for an authorization server (RFC 9449): the stored one, else `create()`'s,
   * stored first (the first of racing processes wins, and all use its key). Optional: a store
   * without it gives a key per process (DPoP-bound refresh tokens then do not outlive it).
   */
  dpopKey?(issuer: string, create: () => Promise<StoredDpopKey>): Promise<StoredDpopKey>
}

interface StoreFile {
  version: 1
  clients: Record<string, StoredClient>
  tokens: Record<string, StoredTokens>
  /** Private DPoP keys by issuer (the file is 0600). */
  dpopKeys?: Record<string, StoredDpopKey>
}

const key = (issuer: string, resource: string): string => JSON.stringify([issuer, resource])

/** `$XDG_CONFIG_HOME/mcp-auth/tokens.json`, else `~/.config/mcp-auth/tokens.json`. */
export function defaultTokenStorePath(): string {
  const base = process.env['XDG_CONFIG_HOME'] || join(homedir(), '.config')
  return join(base, 'mcp-auth', defaults.oauthClient.storeFile)
}

/**
 * The default token store: one JSON file per user, written 0600 atomically (temp file, fsync,
 * rename). Every read goes to the file, so several processes see each other's writes; writes and
 * {@link TokenStore.exclusive} sections hold a lock file (a dead holder's lock is taken over).
 */
export class FileTokenStore implements TokenStore {
  readonly #file: string
  /** Exclusive sections of this instance, one after another. */
  #chain: Promise<unknown> = Promise.resolve()
  /** Set in the async context of a running exclusive section (which already holds the lock). */
  readonly #section = new AsyncLocalStorage<true>()
  /** Read-modify-write cycles inside a section, one after another. */
  #writes: Promise<unknown> = Promise.resolve()

  constructor(file: string = defaultTokenStorePath()) {
    this.#file = file
  }

  get file(): string {
    return this.#file
  }

  async #read(): Promise<StoreFile> {
    const data = await readJsonFile<StoreFile>(this.#file)
    if (data === undefined) return { version: 1, clients: {}, tokens: {} }
    if (data.version !== 1) throw new Error(`${this.#file} has an unknown format version`)
    return { version: 1, clients: data.clients ?? {}, tokens: data.tokens ?? {}, ...(data.dpopKeys !== undefined ? { dpopKeys: data.dpopKeys } : {}) }
  }

  async #update(change: (data: StoreFile) => void): Promise<void> {
    const run = async (): Promise<void> => {
      const data = await this.#read()
      change(data)
      await writePrivateFile(this.#file, JSON.stringify(data, null, 2))
    }
    // inside a section the lock is ours: only keep its writes from interleaving; outside, take it
    if (this.#section.getStore() === undefined) return this.exclusive(run)
    const next = this.#writes.then(run)
    this.#writes = next.catch(() => undefined)
    return next
  }

  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return (await this.#read()).clients[issuer]
  }

  async setClient(issuer: string, client: StoredClient): Promise<void> {
    await this.#update((data) => {
      data.clients[issuer] = client
    })
  }

  async getTokens(issuer: string, resource: string): Promise<StoredTokens | undefined> {
    return (await this.#read()).tokens[key(issuer, resource)]
  }

  async setTokens(issuer: string, resource: string, tokens: StoredTokens): Promise<void> {
    await this.#update((data) => {
      data.tokens[key(issuer, resource)] = tokens
    })
  }

  async dpopKey(issuer: string, create: () => Promise<StoredDpopKey>): Promise<StoredDpopKey> {
    const found = (await this.#read()).dpopKeys?.[issuer]
    if (found !== undefined) return found
    const created = await create()
    let kept = created
    await this.#update((data) => {
      // another process may have stored one meanwhile: its key is the one
      const stored = data.dpopKeys?.[issuer]
      if (stored !== undefined) kept = stored
      else data.dpopKeys = { ...data.dpopKeys, [issuer]: created }
    })
    return kept
  }

  async deleteTokens(issuer: string, resource: string): Promise<void> {
    await this.#update((data) => {
      delete data.tokens[key(issuer, resource)]
    })
  }

  async list(): Promise<Array<{ issuer: string; resource: string; tokens: StoredTokens }>> {
    return Object.entries((await this.#read()).tokens).map(([k, tokens]) => {
      const [issuer, resource] = JSON.parse(k) as [string, string]
      return { issuer, resource, tokens }
    })
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // In this process: one section at a time; across processes: the lock file.
    const next = this.#chain.then(async () => {
      const release = await this.#lock()
      try {
        return await this.#section.run(true, fn)
      } finally {
        release()
      }
    })
    this.#chain = next.catch(() => undefined)
    return next
  }

  async #lock(): Promise<() => void> {
    await ensurePrivateDir(dirname(this.#file))
    const deadline = Date.now() + defaults.oauthClient.storeLockTimeoutMs
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      try {
        return acquireFileLock(this.#file).release
      } catch (error) {
        if (!(error instanceof StorageLockedError) || Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }
}
