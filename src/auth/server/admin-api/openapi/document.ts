import { defaults } from '../../../../config/defaults.js'
import { accountsPart } from './accounts.js'
import { auditPart } from './audit.js'
import { clientsPart } from './clients.js'
import { grantsPart } from './grants.js'
import { resourcesPart } from './resources.js'
import { serverPart } from './server.js'
import type { ApiPart } from './part.js'

const a = defaults.authServer.admin

/** The parts of the API, one per tag. */
const PARTS: readonly ApiPart[] = [accountsPart, clientsPart, grantsPart, resourcesPart, serverPart, auditPart]

/**
 * The admin API's OpenAPI 3.0 document: what the API is, and what every request is checked
 * against (openapi-backend validates each one with ajv before any operation runs). Served at
 * `${apiPath}/openapi.json` with `servers` set to the issuer's API URL.
 * @see https://spec.openapis.org/oas/v3.0.3
 */
export function adminApiDocument(apiUrl: string): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: {
      title: 'mcp-auth admin API',
      version: '1',
      description:
        'Administer a running mcp-auth authorization server: accounts, clients, grants, resources, keys and state. ' +
        `Every request carries an access token for this API (resource ${apiUrl}) with the scope \`${a.scope}\`, as Bearer or DPoP. ` +
        'A person needs a recent sign-in (RFC 9470 `insufficient_user_authentication` otherwise). ' +
        'Errors are RFC 9457 problem details. Lists page with `limit` and `cursor`; writes to a versioned item take `If-Match`. See docs/administration.md.',
    },
    servers: [{ url: apiUrl }],
    security: [{ bearer: [a.scope] }, { dpop: [a.scope] }],
    tags: PARTS.map((part) => ({ name: part.tag, description: part.description })),
    paths: Object.assign({}, ...PARTS.map((part) => part.paths)),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        dpop: { type: 'http', scheme: 'dpop', description: 'A DPoP-bound access token with a proof (RFC 9449)' },
      },
      parameters: {
        limit: {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Items per page (default ${a.pageSize})`,
          schema: { type: 'integer', minimum: 1, maximum: a.maxPageSize },
        },
        cursor: { name: 'cursor', in: 'query', required: false, description: 'The `next_cursor` of the page before', schema: { type: 'string', minLength: 1, maxLength: 512 } },
        ifMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'The ETag read: the write is refused (412) when the item changed since',
          schema: { type: 'string', maxLength: 256 },
        },
      },
      responses: {
        problem: { description: 'A refusal (RFC 9457)', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string', description: '`urn:mcp-auth:admin:<code>`' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string', description: 'What exactly failed, and what to do' },
            errors: { type: 'array', items: { type: 'object' }, description: 'For `invalid-request`: each mismatch with the document' },
          },
        },
        ...Object.assign({}, ...PARTS.map((part) => part.schemas)),
      },
    },
  }
}
