import { jsonAnswer, listParameters, pageOf, problems, type ApiPart } from './part.js'

/** Grants: list (all, of an account, of a client) and revoke. */
export const grantsPart: ApiPart = {
  tag: 'grants',
  description: 'What people granted to clients, and the end of it',
  paths: {
    '/grants': {
      get: {
        operationId: 'listGrants',
        tags: ['grants'],
        summary: 'Live grants, a page at a time; of one account (`username`) or one client (`client_id`) it reads theirs only',
        parameters: [
          ...listParameters,
          { name: 'username', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 64 } },
          { name: 'client_id', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 2048 } },
        ],
        responses: { '200': jsonAnswer('A page of grants', pageOf('Grant')), ...problems },
      },
    },
    '/grants/{grant_id}': {
      parameters: [{ name: 'grant_id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 256 } }],
      delete: {
        operationId: 'revokeGrant',
        tags: ['grants'],
        summary: 'Ends a grant: every token and code from it, the remembered consent; its JWT access tokens are refused at once by every node',
        responses: { '204': { description: 'Ended' }, ...problems },
      },
    },
    '/accounts/{username}/grants': {
      parameters: [{ name: 'username', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }],
      get: {
        operationId: 'listAccountGrants',
        tags: ['accounts', 'grants'],
        summary: 'What the account granted, a page at a time',
        parameters: [...listParameters],
        responses: { '200': jsonAnswer('A page of grants', pageOf('Grant')), ...problems },
      },
    },
  },
  schemas: {
    Grant: {
      type: 'object',
      required: ['grant_id', 'account_id', 'client_id', 'resources'],
      properties: {
        grant_id: { type: 'string' },
        account_id: { type: 'string', description: 'The subject (`sub`) of its tokens' },
        username: { type: 'string', description: 'Absent for a deleted account' },
        client_id: { type: 'string' },
        client_name: { type: 'string' },
        resources: { type: 'object', additionalProperties: { type: 'string' }, description: 'Granted scopes (space-separated) per resource' },
        created_at: { type: 'string', format: 'date-time' },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
  },
}
