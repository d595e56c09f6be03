import { AUDIT_EVENT_TYPES } from '../../../../observe/audit-event.js'
import { defaults } from '../../../../config/defaults.js'
import { jsonAnswer, pageOf, problems, type ApiPart } from './part.js'

const audit = defaults.observe.audit

/** The audit trail: the security events, newest first, filtered. */
export const auditPart: ApiPart = {
  tag: 'audit',
  description: 'The audit trail: security events (sign-ins, tokens, administration, tool calls), newest first',
  paths: {
    '/audit': {
      get: {
        operationId: 'listAuditEvents',
        tags: ['audit'],
        summary:
          'Events of the audit trail, newest first, a page at a time; a query that reads many events without a match answers a short page and a cursor. ' +
          'On a deployment, every node’s events',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `Events per page (default ${audit.queryLimit})`,
            schema: { type: 'integer', minimum: 1, maximum: audit.maxQueryLimit },
          },
          { $ref: '#/components/parameters/cursor' },
          { name: 'since', in: 'query', required: false, description: 'Events at or after this time', schema: { type: 'string', format: 'date-time' } },
          { name: 'until', in: 'query', required: false, description: 'Events at or before this time', schema: { type: 'string', format: 'date-time' } },
          {
            name: 'user',
            in: 'query',
            required: false,
            description: 'A username or subject: events it did or that are about it',
            schema: { type: 'string', minLength: 1, maxLength: 256 },
          },
          { name: 'client_id', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 2048 } },
          {
            name: 'type',
            in: 'query',
            required: false,
            description: `Event types (repeat it for several), or prefixes ending in \`.\` (\`sign-in.\`): ${AUDIT_EVENT_TYPES.join(', ')}`,
            style: 'form',
            explode: true,
            schema: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z][a-z.-]*$' } },
          },
        ],
        responses: { '200': jsonAnswer('A page of events', pageOf('AuditEvent')), ...problems },
      },
    },
  },
  schemas: {
    AuditEvent: {
      type: 'object',
      required: ['id', 'at', 'node', 'type', 'result'],
      properties: {
        id: { type: 'string', description: 'Sortable within the trail (a Redis stream id on a deployment)' },
        at: { type: 'string', format: 'date-time' },
        node: { type: 'string', description: 'The node that recorded it (host name and process id)' },
        type: { type: 'string', enum: [...AUDIT_EVENT_TYPES] },
        result: { type: 'string', enum: ['success', 'failure', 'refused'] },
        reason: { type: 'string' },
        actor: {
          type: 'object',
          description: 'Who did it: a person (subject, username), a client, or an operator at a shell (os_user)',
          properties: {
            subject: { type: 'string' },
            username: { type: 'string' },
            client_id: { type: 'string' },
            os_user: { type: 'string' },
            channel: { type: 'string', enum: ['http', 'admin-api', 'console', 'cli-local', 'cli-redis', 'gateway', 'mcp'] },
          },
        },
        subject: { type: 'string', description: 'The account it is about' },
        username: { type: 'string' },
        client_id: { type: 'string' },
        resource: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string' } },
        address_group: { type: 'string', description: 'The caller’s address group (an IPv4 address, an IPv6 /64)' },
        request_id: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  },
}
