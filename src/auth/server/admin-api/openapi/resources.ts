import { jsonAnswer, jsonBody, problems, type ApiPart } from './part.js'

const id = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The resource URI, base64url-encoded (RFC 4648 §5, no padding)',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,2800}$' },
}
const scopeToken = { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$', maxLength: 128 }
const conflict = { $ref: '#/components/responses/problem' }

/** What a stored resource is made of, as POST and PUT take it (`uri` required by POST only). */
const resourceFields = {
  uri: { type: 'string', format: 'uri', maxLength: 2048, description: 'https (http on loopback only), no query or fragment' },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', minLength: 1, maxLength: 1000 },
  scopes: { type: 'array', minItems: 1, maxItems: 256, items: scopeToken, description: 'Default: the server’s resource scopes' },
  default_scopes: { type: 'array', maxItems: 256, items: scopeToken, description: 'Among `scopes`; default: the first of them' },
  scope_descriptions: { type: 'object', maxProperties: 256, additionalProperties: { type: 'string', minLength: 1, maxLength: 1000 } },
  token_format: { type: 'string', enum: ['jwt', 'opaque'] },
  access_token_ttl_seconds: { type: 'integer', minimum: 1 },
  require_dpop: { type: 'boolean' },
  aliases: { type: 'array', maxItems: 64, items: { type: 'string', format: 'uri', maxLength: 2048 } },
}

/** Resources: the configured, stored and built-in ones; stored ones added, changed and removed without a restart. */
export const resourcesPart: ApiPart = {
  tag: 'resources',
  description: 'The protected resources (MCP servers) tokens are issued for: configured ones (read-only here), stored ones, and the server’s own',
  paths: {
    '/resources': {
      get: {
        operationId: 'listResources',
        tags: ['resources'],
        summary: 'Every resource with its source: configured (the server’s options, the gateway’s servers), stored, built-in',
        responses: {
          '200': jsonAnswer('The resources', { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Resource' } } } }),
          ...problems,
        },
      },
      post: {
        operationId: 'createResource',
        tags: ['resources'],
        summary: 'Stores a resource: every node issues tokens for it at once',
        requestBody: jsonBody('NewResource'),
        responses: { '201': jsonAnswer('The resource', 'Resource'), '409': conflict, ...problems },
      },
    },
    '/resources/{id}': {
      parameters: [id],
      get: {
        operationId: 'getResource',
        tags: ['resources'],
        summary: 'One resource (a stored one with its ETag)',
        responses: { '200': jsonAnswer('The resource', 'Resource'), ...problems },
      },
      put: {
        operationId: 'replaceResource',
        tags: ['resources'],
        summary: 'Replaces a stored resource (its URI stays); configured and built-in ones are read-only (409)',
        parameters: [{ $ref: '#/components/parameters/ifMatch' }],
        requestBody: jsonBody('ResourceChange'),
        responses: { '200': jsonAnswer('The resource as it is now', 'Resource'), '409': conflict, '412': conflict, ...problems },
      },
      delete: {
        operationId: 'deleteResource',
        tags: ['resources'],
        summary: 'Removes a stored resource: no node issues tokens for it from then on (tokens issued before stay valid until they expire)',
        parameters: [{ $ref: '#/components/parameters/ifMatch' }],
        responses: { '204': { description: 'Removed' }, '409': conflict, '412': conflict, ...problems },
      },
    },
  },
  schemas: {
    Resource: {
      type: 'object',
      required: ['id', 'uri', 'source', 'scopes', 'default_scopes', 'token_format'],
      properties: {
        id: { type: 'string', description: 'base64url of `uri`: the path parameter' },
        source: {
          type: 'string',
          enum: ['configured', 'stored', 'built-in'],
          description:
            'configured: the server’s options or the gateway’s servers (change them there); stored: through this API or `mcp-auth resources`; built-in: the server’s own',
        },
        served: { type: 'boolean', description: 'False for a stored resource one of whose identifiers a configured or built-in resource has (that one is served)' },
        ...resourceFields,
        added_at: { type: 'string', format: 'date-time' },
        etag: { type: 'string', description: 'Stored ones: what If-Match takes' },
      },
    },
    NewResource: { type: 'object', additionalProperties: false, required: ['uri'], properties: resourceFields },
    ResourceChange: { type: 'object', additionalProperties: false, properties: resourceFields },
  },
}
