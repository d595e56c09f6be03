import type { NodeInfo } from '../admin/node-registry.js'
import type { AdminServices } from './admin-context.js'

const iso = (ms: number): string => new Date(ms).toISOString()
const nodeRef = (node: NodeInfo) => ({ id: node.id, host: node.host })

/** The server's state as the admin API (`GET /state`) and the console's overview show it. */
export async function stateView(services: Pick<AdminServices, 'nodes' | 'issuer' | 'storageState'>): Promise<Record<string, unknown>> {
  const { nodes, issuer } = services
  const listed = await nodes.nodes()
  return {
    // this node's, the one that answers (each node's is in its entry)
    version: listed[0]!.version,
    issuer: issuer.href.replace(/\/$/, '') === issuer.origin ? issuer.origin : issuer.href,
    storage: await services.storageState(),
    nodes: listed.map((node) => ({
      id: node.id,
      host: node.host,
      pid: node.pid,
      version: node.version,
      started_at: iso(node.startedAt),
      last_seen_at: iso(node.lastSeenAt),
      signing_key_fingerprint: node.signingKeys,
      secrets_digest: node.secrets,
      children: node.children.length,
      this_node: node.id === nodes.id,
    })),
  }
}

/** The signing keys per node as the admin API (`GET /keys`) and the console's keys page show them: which nodes still sign with an old key. */
export async function keysView(services: Pick<AdminServices, 'nodes' | 'keys'>): Promise<Record<string, unknown>> {
  const [current, listed] = await Promise.all([services.keys.current(), services.nodes.nodes()])
  const isCurrent = (node: NodeInfo) => current.fingerprint !== undefined && node.signingKeys === current.fingerprint
  return {
    ...(current.fingerprint !== undefined ? { fingerprint: current.fingerprint } : {}),
    ...(current.recordedAt !== undefined ? { recorded_at: iso(current.recordedAt) } : {}),
    nodes: listed.map((node) => ({ id: node.id, host: node.host, fingerprint: node.signingKeys, current: isCurrent(node) })),
    old_key_nodes: listed.filter((node) => !isCurrent(node)).map(nodeRef),
  }
}
