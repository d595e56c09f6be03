import { jsonAnswer, jsonBody, listParameters, pageOf, problems, type ApiPart } from './part.js'

const clientId = { name: 'client_id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 2048 } }
const uris = { type: 'array', items: { type: 'string', format: 'uri', maxLength: 2048 }, maxItems: 64 }
const problem = { $ref: '#/components/responses/problem' }

/** Clients: list (origin, last use, blocked), register, read, remove, block and unblock, and what each holds. */
export const clientsPart: ApiPart = {
  tag: 'clients',
  description: 'Registered clients: configured, added by an administrator, dynamic (RFC 7591) and client ID metadata documents',
  paths: {
    '/clients': {
      get: {
        operationId: 'listClients',
        tags: ['clients'],
        summary: 'Clients by client_id, a page at a time; `q` searches client_id and name',
        parameters: [
          ...listParameters,
          { name: 'origin', in: 'query', required: false, schema: { type: 'string', enum: ['built-in', 'configured', 'administrator', 'dynamic', 'metadata-document'] } },
          { name: 'blocked', in: 'query', required: false, schema: { type: 'boolean' } },
          { name: 'q', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 128 } },
        ],
        responses: { '200': jsonAnswer('A page of clients', pageOf('Client')), ...problems },
      },
      post: {
        operationId: 'createClient',
        tags: ['clients'],
        summary:
          'Registers a client as an administrator (RFC 7591 metadata), never expired. Registered with the scope `mcp-auth:admin` and the client_credentials grant, it is a machine administrator. A confidential client’s secret is in the answer, this once',
        requestBody: jsonBody('NewClient'),
        responses: { '201': jsonAnswer('The client (and its secret)', 'CreatedClient'), '409': problem, ...problems },
      },
    },
    '/clients/{client_id}': {
      parameters: [clientId],
      get: { operationId: 'getClient', tags: ['clients'], summary: 'One client', responses: { '200': jsonAnswer('The client', 'Client'), ...problems } },
      delete: {
        operationId: 'deleteClient',
        tags: ['clients'],
        summary:
          'Removes a client and ends its grants (a configured client: 409, remove it from the configuration; a metadata-document client comes back on its next visit unless blocked)',
        responses: {
          '200': jsonAnswer('What ended with it', { type: 'object', required: ['grants_ended'], properties: { grants_ended: { type: 'integer' } } }),
          '409': problem,
          ...problems,
        },
      },
    },
    '/clients/{client_id}/block': {
      parameters: [clientId],
      post: {
        operationId: 'blockClient',
        tags: ['clients'],
        summary: 'Blocks a client on every node: no authorization, no token, its grants end at once (a metadata-document client_id may be blocked before its first visit)',
        responses: { '200': jsonAnswer('The client, blocked', 'BlockedClient'), ...problems },
      },
      delete: {
        operationId: 'unblockClient',
        tags: ['clients'],
        summary: 'Lets a blocked client in again (the grants that ended stay ended)',
        responses: { '200': jsonAnswer('The client', 'Client'), ...problems },
      },
    },
    '/clients/{client_id}/grants': {
      parameters: [clientId],
      get: {
        operationId: 'listClientGrants',
        tags: ['clients', 'grants'],
        summary: 'What the client holds: its live grants, a page at a time',
        parameters: [...listParameters],
        responses: { '200': jsonAnswer('A page of grants', pageOf('Grant')), ...problems },
      },
    },
  },
  schemas: {
    Client: {
      type: 'object',
      required: ['client_id', 'origin', 'grant_types', 'redirect_uris', 'token_endpoint_auth_method', 'blocked'],
      properties: {
        client_id: { type: 'string' },
        client_name: { type: 'string' },
        origin: { type: 'string', enum: ['built-in', 'configured', 'administrator', 'dynamic', 'metadata-document'] },
        grant_types: { type: 'array', items: { type: 'string' } },
        redirect_uris: { type: 'array', items: { type: 'string' } },
        scope: { type: 'string', description: 'The registered scope (it caps client_credentials tokens)' },
        token_endpoint_auth_method: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
        last_used_at: { type: 'string', format: 'date-time', description: 'Its last authorization or token request, to the hour' },
        blocked: { type: 'boolean' },
        blocked_at: { type: 'string', format: 'date-time' },
      },
    },
    NewClient: {
      type: 'object',
      additionalProperties: false,
      description: 'Client metadata (RFC 7591 §2); validated as any registration is',
      properties: {
        client_id: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$', description: 'Omit it to have one generated' },
        client_name: { type: 'string', maxLength: 256 },
        redirect_uris: uris,
        post_logout_redirect_uris: uris,
        grant_types: { type: 'array', items: { type: 'string', maxLength: 128 }, maxItems: 16 },
        response_types: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 8 },
        scope: { type: 'string', maxLength: 2048 },
        token_endpoint_auth_method: { type: 'string', maxLength: 64 },
        application_type: { type: 'string', enum: ['web', 'native'] },
        client_uri: { type: 'string', format: 'uri', maxLength: 2048 },
        logo_uri: { type: 'string', format: 'uri', maxLength: 2048 },
        tos_uri: { type: 'string', format: 'uri', maxLength: 2048 },
        policy_uri: { type: 'string', format: 'uri', maxLength: 2048 },
        contacts: { type: 'array', items: { type: 'string', maxLength: 256 }, maxItems: 16 },
        jwks_uri: { type: 'string', format: 'uri', maxLength: 2048 },
        jwks: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' }, maxItems: 16 } } },
        software_id: { type: 'string', maxLength: 256 },
        software_version: { type: 'string', maxLength: 256 },
        dpop_bound_access_tokens: { type: 'boolean' },
      },
    },
    CreatedClient: {
      type: 'object',
      required: ['client'],
      properties: { client: { $ref: '#/components/schemas/Client' }, client_secret: { type: 'string', description: 'Shown this once; stored encrypted' } },
    },
    BlockedClient: {
      type: 'object',
      required: ['client', 'grants_ended'],
      properties: { client: { $ref: '#/components/schemas/Client' }, grants_ended: { type: 'integer' } },
    },
  },
}
