import { jsonAnswer, jsonBody, listParameters, pageOf, problems, type ApiPart } from './part.js'

const username = { name: 'username', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }
const scopeToken = { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$', maxLength: 128 }
const scopes = {
  description: 'The scopes the account may be granted, or `"default"`: each resource’s default scopes',
  oneOf: [
    { type: 'array', items: scopeToken, maxItems: 256 },
    { type: 'string', enum: ['default'] },
  ],
}

/** Accounts: list, search, create, change (scopes, role, disabled, claims), delete, set-password links, gateway values. */
export const accountsPart: ApiPart = {
  tag: 'accounts',
  description: 'Local accounts and those made by a delegated sign-in',
  paths: {
    '/accounts': {
      get: {
        operationId: 'listAccounts',
        tags: ['accounts'],
        summary: 'Accounts, a page at a time; `q` searches username, name and email',
        parameters: [
          ...listParameters,
          { name: 'q', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'role', in: 'query', required: false, schema: { type: 'string', enum: ['admin', 'user'] } },
          { name: 'disabled', in: 'query', required: false, schema: { type: 'boolean' } },
        ],
        responses: { '200': jsonAnswer('A page of accounts', pageOf('Account')), ...problems },
      },
      post: {
        operationId: 'createAccount',
        tags: ['accounts'],
        summary: 'Creates an account; without a password the answer carries a one-time set-password link',
        requestBody: jsonBody('NewAccount'),
        responses: { '201': jsonAnswer('The account (and its set-password link)', 'CreatedAccount'), '409': { $ref: '#/components/responses/problem' }, ...problems },
      },
    },
    '/accounts/{username}': {
      parameters: [username],
      get: { operationId: 'getAccount', tags: ['accounts'], summary: 'One account, with its ETag', responses: { '200': jsonAnswer('The account', 'Account'), ...problems } },
      patch: {
        operationId: 'updateAccount',
        tags: ['accounts'],
        summary: 'Changes an account: disabling it ends its grants; a role change, or disabling an administrator, needs a sign-in in the last minutes',
        parameters: [{ $ref: '#/components/parameters/ifMatch' }],
        requestBody: jsonBody('AccountChange'),
        responses: {
          '200': jsonAnswer('The account as it is now', 'Account'),
          '409': { $ref: '#/components/responses/problem' },
          '412': { $ref: '#/components/responses/problem' },
          ...problems,
        },
      },
      delete: {
        operationId: 'deleteAccount',
        tags: ['accounts'],
        summary: 'Deletes an account, its grants and its gateway values',
        parameters: [{ $ref: '#/components/parameters/ifMatch' }],
        responses: {
          '200': jsonAnswer('What ended with it', { type: 'object', properties: { grants_ended: { type: 'integer' } } }),
          '412': { $ref: '#/components/responses/problem' },
          ...problems,
        },
      },
    },
    '/accounts/{username}/password-link': {
      parameters: [username],
      post: {
        operationId: 'createPasswordLink',
        tags: ['accounts'],
        summary: 'A one-time link where the person sets a new password (hand it over yourself); earlier links of the account stop working',
        responses: { '201': jsonAnswer('The link', 'PasswordLink'), ...problems },
      },
    },
    '/accounts/{username}/values': {
      parameters: [username],
      get: {
        operationId: 'listAccountValues',
        tags: ['accounts'],
        summary: 'The names of the values the gateway hands this account’s children (never the values)',
        responses: {
          '200': jsonAnswer('Names', { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/AccountValueName' } } } }),
          ...problems,
        },
      },
    },
    '/accounts/{username}/values/{name}': {
      parameters: [username, { name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' } }],
      put: {
        operationId: 'setAccountValue',
        tags: ['accounts'],
        summary: 'Sets a value (sealed at rest) the gateway hands this account’s children as an environment variable',
        requestBody: jsonBody('AccountValue'),
        responses: { '204': { description: 'Set' }, ...problems },
      },
      delete: { operationId: 'deleteAccountValue', tags: ['accounts'], summary: 'Removes a value', responses: { '204': { description: 'Removed' }, ...problems } },
    },
  },
  schemas: {
    Account: {
      type: 'object',
      required: ['id', 'username', 'role', 'disabled', 'created_at'],
      properties: {
        id: { type: 'string', description: 'The subject (`sub`) of its tokens' },
        username: { type: 'string' },
        name: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string', enum: ['admin', 'user'] },
        disabled: { type: 'boolean' },
        scopes: { type: 'array', items: { type: 'string' }, description: 'Absent: each resource’s default scopes' },
        has_password: { type: 'boolean' },
        upstream: { type: 'object', properties: { issuer: { type: 'string' }, subject: { type: 'string' } } },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
        etag: { type: 'string' },
      },
    },
    NewAccount: {
      type: 'object',
      additionalProperties: false,
      required: ['username'],
      properties: {
        username: { type: 'string', pattern: '^[\\p{L}\\p{N}._@+-]{1,64}$' },
        password: { type: 'string', minLength: 8, maxLength: 1024, description: 'Omit it to get a set-password link instead' },
        name: { type: 'string', maxLength: 256 },
        email: { type: 'string', format: 'email', maxLength: 256 },
        scopes,
        role: { type: 'string', enum: ['admin', 'user'] },
      },
    },
    CreatedAccount: {
      type: 'object',
      required: ['account'],
      properties: { account: { $ref: '#/components/schemas/Account' }, password_link: { $ref: '#/components/schemas/PasswordLink' } },
    },
    AccountChange: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        name: { type: 'string', maxLength: 256 },
        email: { type: 'string', format: 'email', maxLength: 256 },
        scopes,
        role: { type: 'string', enum: ['admin', 'user'] },
        disabled: { type: 'boolean' },
      },
    },
    PasswordLink: {
      type: 'object',
      required: ['url', 'expires_at'],
      properties: { url: { type: 'string', format: 'uri' }, expires_at: { type: 'string', format: 'date-time' } },
    },
    AccountValueName: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, updated_at: { type: 'string', format: 'date-time' } } },
    AccountValue: { type: 'object', additionalProperties: false, required: ['value'], properties: { value: { type: 'string', maxLength: 65536 } } },
  },
}
