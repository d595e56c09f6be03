import { jsonAnswer, problems, type ApiPart } from './part.js'

const nodeRef = { type: 'object', required: ['id', 'host'], properties: { id: { type: 'string' }, host: { type: 'string' } } }
const listOf = (schema: string) => ({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: `#/components/schemas/${schema}` } } } })

/** The server: its state and nodes, its signing keys and their rotation, the gateway's children. */
export const serverPart: ApiPart = {
  tag: 'server',
  description: 'The running deployment: version, storage, nodes, signing keys, the gateway’s children',
  paths: {
    '/state': {
      get: {
        operationId: 'getState',
        tags: ['server'],
        summary: 'Version, issuer, storage and the nodes seen (on Redis: each node’s record of the last seconds)',
        responses: { '200': jsonAnswer('The state', 'State'), ...problems },
      },
    },
    '/keys': {
      get: {
        operationId: 'getKeys',
        tags: ['server'],
        summary: 'The signing keys the deployment is to sign with, and each node’s: which still sign with an old key',
        responses: { '200': jsonAnswer('The keys', 'Keys'), ...problems },
      },
    },
    '/keys/rotate': {
      post: {
        operationId: 'rotateKeys',
        tags: ['server'],
        summary:
          'Rotates the signing keys in the serving node’s data directory and records them (a sign-in of the last minutes needed): every node then needs the new jwks.json and a restart',
        responses: { '200': jsonAnswer('What was rotated and what is left to do', 'KeyRotation'), '409': { $ref: '#/components/responses/problem' }, ...problems },
      },
    },
    '/children': {
      get: {
        operationId: 'listChildren',
        tags: ['server'],
        summary: 'The gateway’s children on every node (empty without a gateway)',
        parameters: [
          { name: 'subject', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 256 } },
          { name: 'client_id', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 256 } },
          { name: 'node', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 64 } },
        ],
        responses: { '200': jsonAnswer('The children', listOf('Child')), ...problems },
      },
    },
    '/children/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }],
      delete: {
        operationId: 'endChild',
        tags: ['server'],
        summary: 'Ends a child: the session it served gets a new one on its next request (204 when ended here, 202 when sent to the node running it)',
        responses: {
          '202': jsonAnswer('Sent to the node that runs it', { type: 'object', required: ['node'], properties: { node: { type: 'string' }, detail: { type: 'string' } } }),
          '204': { description: 'Ended' },
          ...problems,
        },
      },
    },
  },
  schemas: {
    State: {
      type: 'object',
      required: ['version', 'issuer', 'storage', 'nodes'],
      properties: {
        version: { type: 'string', description: 'This node’s package version' },
        issuer: { type: 'string' },
        storage: {
          type: 'object',
          required: ['backend'],
          description: 'embedded: the data directory’s store, with its record counts and file sizes; redis: the shared store, its key prefix and whether it answers',
          properties: { backend: { type: 'string' } },
        },
        nodes: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      },
    },
    Node: {
      type: 'object',
      required: ['id', 'host', 'pid', 'version', 'started_at', 'last_seen_at', 'signing_key_fingerprint', 'secrets_digest', 'this_node'],
      properties: {
        id: { type: 'string' },
        host: { type: 'string' },
        pid: { type: 'integer' },
        version: { type: 'string' },
        started_at: { type: 'string', format: 'date-time' },
        last_seen_at: { type: 'string', format: 'date-time' },
        signing_key_fingerprint: { type: 'string' },
        secrets_digest: { type: 'string' },
        children: { type: 'integer', description: 'Gateway children it runs' },
        this_node: { type: 'boolean', description: 'The node that answered' },
      },
    },
    Keys: {
      type: 'object',
      required: ['nodes', 'old_key_nodes'],
      properties: {
        fingerprint: { type: 'string', description: 'What the deployment is to sign with (Redis: the recorded keys; one node: its jwks.json)' },
        recorded_at: { type: 'string', format: 'date-time' },
        nodes: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'host', 'fingerprint', 'current'],
            properties: {
              id: { type: 'string' },
              host: { type: 'string' },
              fingerprint: { type: 'string' },
              current: { type: 'boolean', description: 'Signs with the deployment’s keys' },
            },
          },
        },
        old_key_nodes: { type: 'array', items: nodeRef, description: 'Nodes that still sign with an old key: give them the new jwks.json and restart them' },
      },
    },
    KeyRotation: {
      type: 'object',
      required: ['kids', 'fingerprint', 'rotated_on', 'file', 'copy_to', 'restart', 'detail'],
      properties: {
        kids: { type: 'array', items: { type: 'string' } },
        fingerprint: { type: 'string' },
        rotated_on: nodeRef,
        file: { type: 'string', description: 'The new jwks.json on the node that rotated' },
        copy_to: { type: 'array', items: nodeRef, description: 'The other nodes: each needs a copy of the file' },
        restart: { type: 'array', items: nodeRef, description: 'Every node: each signs with the new keys from its next start' },
        detail: { type: 'string' },
      },
    },
    Child: {
      type: 'object',
      required: ['id', 'client_id', 'node', 'server', 'started_at', 'state'],
      properties: {
        id: { type: 'string' },
        subject: { type: 'string' },
        client_id: { type: 'string' },
        node: { type: 'string' },
        server: { type: 'string', description: 'The MCP path it serves (`/mcp`, `/<name>/mcp`)' },
        started_at: { type: 'string', format: 'date-time' },
        state: { type: 'string', enum: ['running', 'ending'] },
      },
    },
  },
}
