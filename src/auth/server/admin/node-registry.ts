import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { hostname } from 'node:os'
import { defaults } from '../../../config/defaults.js'
import type { MessageBus } from '../../../storage/message-bus.js'
import type { RecordStore } from '../../../storage/types.js'
import type { ChildDirectory, ChildInfo } from './child-directory.js'

const a = defaults.authServer.admin
const NODES = 'admin-nodes'
/** Bus channel: end the child `child` of the node `node` (JSON). */
const END_CHILD = 'admin-end-child'
/** The package's version (src/auth/server/admin/ and dist/auth/server/admin/ are both four levels down). */
const version = (createRequire(import.meta.url)('../../../../package.json') as { version: string }).version

/** A child as the deployment lists it: with the node that runs it. */
export interface NodeChild extends ChildInfo {
  readonly node: string
}

/** One node of the deployment (a process running the authorization server), as it last said. */
export interface NodeInfo {
  id: string
  host: string
  pid: number
  version: string
  startedAt: number
  lastSeenAt: number
  /** The fingerprint of the signing keys it signs with (loaded at its start). */
  signingKeys: string
  /** The digest of its `secrets.json`. */
  secrets: string
  /** Its gateway children (at most `maxPublishedChildren`); `childrenTruncated` when there were more. */
  children: ChildInfo[]
  childrenTruncated?: boolean
}

export interface NodeRegistryOptions {
  records: RecordStore
  /** Several nodes (Redis): each writes its record and hears end requests. Absent: this process is the only node. */
  bus?: MessageBus
  /** The gateway's children in this process. */
  children?: ChildDirectory
  keys: { signingKeys: string; secrets: string }
  now?: () => number
}

/**
 * The nodes of a deployment, for `GET /state`, `/keys` and `/children`. On Redis each node
 * writes its record (host, pid, version, key fingerprints, its gateway children) every
 * `nodeHeartbeatSeconds` into one small collection; a record not refreshed for
 * `nodeRecordTtlSeconds` is no longer listed (a stopped node disappears), and one long dead is
 * deleted. An end request for a child on another node goes to it over the bus. Without Redis
 * the process is the one node and nothing is written.
 */
export class NodeRegistry {
  readonly id = randomUUID()
  readonly #options: NodeRegistryOptions
  readonly #now: () => number
  readonly #startedAt: number
  #timer: NodeJS.Timeout | undefined
  #unsubscribe: (() => Promise<void>) | undefined
  #unwatch: (() => void) | undefined
  /** A beat asked for while one is written: one more follows it (so the last change is published). */
  #beating: Promise<void> | undefined
  #again = false

  private constructor(options: NodeRegistryOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    this.#startedAt = this.#now()
  }

  /** Registers this node (with a bus) and starts its heartbeat. */
  static async start(options: NodeRegistryOptions): Promise<NodeRegistry> {
    const registry = new NodeRegistry(options)
    const bus = options.bus
    if (bus === undefined) return registry
    registry.#unsubscribe = await bus.subscribe(END_CHILD, (message) => registry.#heardEnd(message))
    // a child started or ended is in the list the other nodes read at once, not at the next beat
    registry.#unwatch = options.children?.watch?.(() => registry.#beatSoon())
    await registry.beat()
    registry.#timer = setInterval(() => void registry.beat().catch(() => undefined), a.nodeHeartbeatSeconds * 1000)
    registry.#timer.unref()
    return registry
  }

  /** Whether the deployment has several nodes sharing a store (Redis). */
  get shared(): boolean {
    return this.#options.bus !== undefined
  }

  /** This node, as it is now. */
  self(): NodeInfo {
    const children = this.#options.children?.list() ?? []
    const published = children.slice(0, a.maxPublishedChildren)
    return {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      version,
      startedAt: this.#startedAt,
      lastSeenAt: this.#now(),
      signingKeys: this.#options.keys.signingKeys,
      secrets: this.#options.keys.secrets,
      children: published,
      ...(published.length < children.length ? { childrenTruncated: true } : {}),
    }
  }

  /** Writes this node's record now (the heartbeat does it every `nodeHeartbeatSeconds`). */
  async beat(): Promise<void> {
    await this.#options.records.put(NODES, this.id, this.self())
  }

  /** Writes the record after the one being written (if any); many changes at once make at most two writes. */
  #beatSoon(): void {
    if (this.#beating !== undefined) {
      this.#again = true
      return
    }
    this.#beating = this.beat()
      .catch(() => undefined)
      .finally(() => {
        this.#beating = undefined
        if (this.#again) {
          this.#again = false
          this.#beatSoon()
        }
      })
  }

  /** The live nodes, this one first (as it is now), then the others by start time. */
  async nodes(): Promise<NodeInfo[]> {
    if (!this.shared) return [this.self()]
    const now = this.#now()
    const others: NodeInfo[] = []
    for (const node of await this.#options.records.list<NodeInfo>(NODES)) {
      if (node.id === this.id) continue
      const age = now - node.lastSeenAt
      if (age <= a.nodeRecordTtlSeconds * 1000) others.push(node)
      else if (age > a.nodeRecordRemoveAfterSeconds * 1000) await this.#options.records.delete(NODES, node.id)
    }
    return [this.self(), ...others.sort((x, y) => x.startedAt - y.startedAt)]
  }

  /** Every live node's gateway children, with the node that runs each. */
  async children(): Promise<NodeChild[]> {
    return (await this.nodes()).flatMap((node) => node.children.map((child) => ({ ...child, node: node.id })))
  }

  /**
   * Ends a child wherever it runs: here at once ('ended'), on another live node by a message over
   * the bus ('sent' to `node`: it ends the child as soon as it hears it), or 'unknown' when no
   * node lists it.
   */
  async endChild(id: string): Promise<{ kind: 'ended' } | { kind: 'unknown' } | { kind: 'sent'; node: string }> {
    if (await this.#options.children?.end(id)) return { kind: 'ended' }
    if (!this.shared) return { kind: 'unknown' }
    const owner = (await this.nodes()).find((node) => node.id !== this.id && node.children.some((child) => child.id === id))
    if (owner === undefined) return { kind: 'unknown' }
    await this.#options.bus!.publish(END_CHILD, JSON.stringify({ node: owner.id, child: id }))
    return { kind: 'sent', node: owner.id }
  }

  #heardEnd(message: string): void {
    try {
      const request = JSON.parse(message) as { node?: unknown; child?: unknown }
      if (request.node !== this.id || typeof request.child !== 'string') return
      void this.#options.children
        ?.end(request.child)
        .then(() => this.#beatSoon())
        .catch(() => undefined)
    } catch {
      // not one of ours
    }
  }

  /** Stops the heartbeat and removes this node's record (a stopped node is gone at once). */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#unwatch?.()
    await this.#unsubscribe?.().catch(() => undefined)
    await this.#beating
    if (this.shared) await this.#options.records.delete(NODES, this.id).catch(() => undefined)
  }
}
