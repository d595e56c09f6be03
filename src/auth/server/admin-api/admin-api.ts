import type { Context, Middleware, Next } from 'koa'
import { OpenAPIBackend } from 'openapi-backend'
import addFormatsModule from 'ajv-formats'
import { defaults } from '../../../config/defaults.js'
import { isStorageUnavailable } from '../../../storage/errors.js'
import { OAuthError } from '../../errors.js'
import { protectedResourceMetadata } from '../../resource/protected-resource-metadata.js'
import { scoped } from '../middleware/scoped-middleware.js'
import { AdminError, type AdminErrorCode } from '../admin/admin-error.js'
import { callerActor, type AdminCaller } from './admin-caller.js'
import { actingAs } from '../admin/admin-audit.js'
import { requestFacts } from '../provider/audit-provider-events.js'
import type { AdminRequest, AdminResponse, AdminServices } from './admin-context.js'
import { ADMIN_OPERATIONS } from './handlers/index.js'
import { adminApiDocument } from './openapi/document.js'
import { AdminProblem, type ProblemCode } from './problem.js'

const a = defaults.authServer.admin
// ajv-formats is CommonJS: its default import is the function itself
const addFormats = addFormatsModule as unknown as <T>(ajv: T) => T

export interface AdminApiOptions {
  services: AdminServices
  /** The API's path on this server (`${mountPath}/admin/api`). */
  path: string
  /** The API's URL: its resource identifier and the document's server. */
  url: string
}

/**
 * The admin API as Koa middleware: its protected resource metadata (RFC 9728), its OpenAPI
 * document, and every operation behind the admin token check. The steps of a request, in order:
 * the caller (token checked like any resource's, then role or client), the JSON body (at most
 * `maxBodyBytes`), the request checked against the OpenAPI document (openapi-backend with ajv:
 * parameters, body, types), the operation, its answer. Every refusal is problem details.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9457
 */
export function adminApi(options: AdminApiOptions): Middleware {
  const { services, path } = options
  const document = adminApiDocument(options.url)
  const documentText = JSON.stringify(document)
  // built at the first request that needs it: compiling the document with ajv costs about a
  // second of CPU, which a CLI command opening the server for one local operation never needs
  let backend: Promise<OpenAPIBackend> | undefined
  const build = async (): Promise<OpenAPIBackend> => {
    const api = new OpenAPIBackend({
      definition: structuredClone(document) as never,
      apiRoot: '/',
      strict: true,
      validate: true,
      coerceTypes: true,
      customizeAjv: (ajv) => addFormats(ajv),
      handlers: {
        validationFail: (c) => {
          throw new AdminProblem('invalid-request', (c.validation.errors ?? []).map((error) => `${error.instancePath || 'request'} ${error.message ?? 'is invalid'}`).join('; '), {
            extra: { errors: (c.validation.errors ?? []).map(({ instancePath, message, params }) => ({ path: instancePath, message, params })) },
          })
        },
        notFound: () => {
          throw new AdminProblem('not-found', 'no such admin API operation: see openapi.json')
        },
        methodNotAllowed: () => {
          throw new AdminProblem('method-not-allowed', 'this method is not one of the operations at this path: see openapi.json')
        },
        notImplemented: (c) => {
          throw new Error(`the admin API operation ${c.operation.operationId} has no implementation`)
        },
      },
    })
    for (const [operationId, operation] of Object.entries(ADMIN_OPERATIONS)) {
      api.register(operationId, (c, caller: AdminCaller, ifMatch: string | undefined) => {
        const request: AdminRequest = {
          caller,
          params: c.request.params as Record<string, string>,
          query: c.request.query as Record<string, unknown>,
          body: c.request.requestBody,
          ifMatch,
          services,
        }
        return operation(request)
      })
    }
    // the token was checked before the document is consulted (the caller is what reaches an operation)
    api.registerSecurityHandler('bearer', () => true)
    api.registerSecurityHandler('dpop', () => true)
    await api.init()
    return api
  }

  const resourcePath = new URL(options.url).pathname
  const metadataPath = `/.well-known/oauth-protected-resource${resourcePath}`
  const metadata = JSON.stringify(
    protectedResourceMetadata({
      resource: options.url,
      authorizationServers: [services.issuer.href.replace(/\/$/, '') === services.issuer.origin ? services.issuer.origin : services.issuer.href],
      scopesSupported: [a.scope],
      resourceName: 'mcp-auth admin API',
      ...services.authority.bearer.dpopMetadata,
    }),
  )
  const under = `${path}/`
  const applies = (requestPath: string): boolean => requestPath === path || requestPath.startsWith(under) || requestPath === metadataPath

  return scoped(applies, async function adminApiRequest(ctx: Context, _next: Next): Promise<void> {
    ctx.set('cache-control', 'no-store')
    if (ctx.path === metadataPath) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return problem(ctx, new AdminProblem('method-not-allowed', 'GET the metadata'))
      ctx.type = 'application/json'
      ctx.body = metadata
      return
    }
    if (ctx.path === `${path}/openapi.json`) {
      ctx.type = 'application/json'
      ctx.body = documentText
      return
    }
    try {
      const caller = await services.authority.authenticate({ method: ctx.method, url: new URL(ctx.href), headers: ctx.headers })
      const body = await readJson(ctx)
      backend ??= build()
      const api = await backend.catch((error: unknown) => {
        backend = undefined
        throw error
      })
      // what the operation does is recorded in the audit trail as this caller's, from this request
      const answer = (await actingAs({ actor: callerActor(caller, 'admin-api'), ...requestFacts(ctx) }, () =>
        api.handleRequest(
          { method: ctx.method, path: ctx.path.slice(path.length) || '/', query: ctx.querystring, headers: ctx.headers as Record<string, string>, body },
          caller,
          ctx.get('if-match') || undefined,
        ),
      )) as AdminResponse
      ctx.status = answer.status ?? (answer.body === undefined ? 204 : 200)
      if (answer.etag !== undefined) ctx.set('etag', answer.etag)
      if (answer.headers !== undefined) ctx.set(answer.headers)
      if (answer.body !== undefined) {
        ctx.type = 'application/json'
        ctx.body = answer.body
      }
    } catch (error) {
      problem(ctx, error)
    }
  })

  /** The one answer to a refusal: problem details, with the challenge a token refusal carries. */
  function problem(ctx: Context, error: unknown): void {
    let answer: AdminProblem
    if (error instanceof AdminProblem) answer = error
    else if (error instanceof AdminError) answer = new AdminProblem(PROBLEM_OF[error.code], error.message, { cause: error, extra: { code: error.code } })
    else if (error instanceof OAuthError || isStorageUnavailable(error)) {
      const refusal = services.authority.bearer.errorResponse(error)
      const code: ProblemCode =
        refusal.status === 401
          ? refusal.body['error'] === 'insufficient_user_authentication'
            ? 'login-too-old'
            : 'unauthenticated'
          : refusal.status === 403
            ? 'forbidden'
            : refusal.status === 503
              ? 'unavailable'
              : refusal.status === 413
                ? 'too-large'
                : refusal.status === 415
                  ? 'unsupported-media-type'
                  : refusal.status >= 500
                    ? 'internal'
                    : 'invalid-request'
      const described =
        refusal.body['error_description'] ?? (refusal.status === 401 ? `send an access token for ${options.url} with the scope ${a.scope}` : (refusal.body['error'] ?? 'refused'))
      answer = new AdminProblem(code, described, {
        status: refusal.status,
        headers: refusal.headers,
        extra: refusal.body['error'] !== undefined ? { error: refusal.body['error'] } : {},
      })
    } else {
      answer = new AdminProblem('internal', 'internal error', { cause: error })
      ctx.app.emit('error', error, ctx)
    }
    ctx.status = answer.status
    ctx.set(answer.headers)
    ctx.set('cache-control', 'no-store')
    ctx.type = 'application/problem+json'
    ctx.body = answer.toJSON()
  }
}

const PROBLEM_OF: Record<AdminErrorCode, ProblemCode> = {
  configured_client: 'conflict',
  client_exists: 'conflict',
  unknown_account: 'not-found',
  unknown_client: 'not-found',
  account_exists: 'conflict',
  demo_account: 'forbidden',
  last_administrator: 'conflict',
  stale: 'precondition-failed',
  invalid: 'invalid-request',
}

/** The JSON body of a request that has one: JSON only, at most `maxBodyBytes`. */
async function readJson(ctx: Context): Promise<unknown> {
  if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'DELETE') return undefined
  const length = ctx.get('content-length')
  if ((length === '' || length === '0') && ctx.get('transfer-encoding') === '') return undefined
  if (!ctx.is('application/json')) throw new AdminProblem('unsupported-media-type', 'send the body as application/json')
  if (Number(length || '0') > a.maxBodyBytes) throw new AdminProblem('too-large', `the body is over ${a.maxBodyBytes} bytes`)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length
    if (size > a.maxBodyBytes) throw new AdminProblem('too-large', `the body is over ${a.maxBodyBytes} bytes`)
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)))
  } catch (cause) {
    throw new AdminProblem('invalid-request', 'the body is not JSON (UTF-8)', { cause })
  }
}
