import type { NodeInfo } from '../../admin/node-registry.js'
import type { AdminOperation } from '../admin-context.js'
import { AdminProblem } from '../problem.js'
import { keysView, stateView } from '../server-views.js'

const iso = (ms: number): string => new Date(ms).toISOString()
const nodeRef = (node: NodeInfo) => ({ id: node.id, host: node.host })

/** The server: the operations of the document's `server` tag, by operationId. */
export const serverOperations: Record<string, AdminOperation> = {
  async getState(request) {
    return { body: await stateView(request.services) }
  },

  async getKeys(request) {
    return { body: await keysView(request.services) }
  },

  async rotateKeys(request) {
    request.services.authority.requireSensitiveLogin(request.caller)
    const rotation = await request.services.keys.rotate().catch((error: unknown) => {
      // this node's files are not the deployment's (rotated elsewhere and not copied here yet)
      throw new AdminProblem('conflict', `the keys were not rotated: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    })
    const listed = await request.services.nodes.nodes()
    const self = listed[0]!
    const others = listed.slice(1)
    return {
      body: {
        kids: rotation.kids,
        fingerprint: rotation.fingerprint,
        rotated_on: nodeRef(self),
        file: rotation.file,
        copy_to: others.map(nodeRef),
        restart: listed.map(nodeRef),
        detail:
          `New signing keys are in ${rotation.file} on ${self.host}` +
          (others.length > 0 ? `; copy it to the data directory of ${others.map((node) => node.host).join(', ')}` : '') +
          ', then restart every node, one at a time: each signs with the new keys from its next start (tokens signed before stay valid until they expire).',
      },
    }
  },

  async listChildren(request) {
    const { subject, client_id: clientId, node } = request.query as { subject?: string; client_id?: string; node?: string }
    const children = (await request.services.nodes.children()).filter(
      (child) => (subject === undefined || child.subject === subject) && (clientId === undefined || child.clientId === clientId) && (node === undefined || child.node === node),
    )
    return {
      body: {
        items: children.map((child) => ({
          id: child.id,
          ...(child.subject !== undefined ? { subject: child.subject } : {}),
          client_id: child.clientId,
          node: child.node,
          server: child.server,
          started_at: iso(child.startedAt),
          state: child.state,
        })),
      },
    }
  },

  async endChild(request) {
    const id = request.params['id']!
    // who it served, for the audit event (the child leaves the list as it ends)
    const child = (await request.services.nodes.children()).find((candidate) => candidate.id === id)
    const outcome = await request.services.nodes.endChild(id)
    if (outcome.kind === 'unknown') throw new AdminProblem('not-found', `no gateway child ${id} runs on any node (it may have ended): see GET /children`)
    request.services.administration.audit.record({
      type: 'gateway.child-ended-by-admin',
      result: 'success',
      ...(child?.subject !== undefined ? { subject: child.subject } : {}),
      ...(child !== undefined && child.clientId !== '' ? { clientId: child.clientId } : {}),
      details: { child: id, ...(child !== undefined ? { server: child.server, node: child.node } : {}), ...(outcome.kind === 'sent' ? { sent_to: outcome.node } : {}) },
    })
    if (outcome.kind === 'ended') return { status: 204 }
    return { status: 202, body: { node: outcome.node, detail: `the node ${outcome.node} ends the child as it hears the request: GET /children no longer lists it then` } }
  },
}
