import { timingSafeEqual } from 'node:crypto'
import type { Context, Middleware, Next } from 'koa'
import { errors } from 'oidc-provider'
import { defaults } from '../../../config/defaults.js'
import { readFormBody } from '../middleware/read-form-body.js'
import { abortStep } from './abort.js'
import { confirmStep } from './confirm.js'
import { csrfFor, InteractionMismatch, page, type InteractionDeps, type Step } from './context.js'
import { loginStep } from './login.js'
import { showStep } from './show.js'
import { upstreamCallback, upstreamDoneStep } from './upstream.js'
import { scoped } from '../middleware/scoped-middleware.js'

export type { InteractionDeps } from './context.js'

interface Route {
  /** The last path segment after `/:uid` (none: the page itself). */
  action: string | undefined
  methods: readonly string[]
  /** POSTed forms: same-origin and CSRF-checked before the step runs. */
  form: boolean
  step: Step
  /** Only served when delegation to an upstream provider is configured. */
  upstreamOnly?: boolean
}

/** The interaction's routes, in the order a sign-in goes through them. */
const ROUTES: readonly Route[] = [
  { action: undefined, methods: ['GET', 'HEAD'], form: false, step: (ctx, step) => showStep(ctx, step) },
  { action: 'login', methods: ['POST'], form: true, step: loginStep },
  { action: 'upstream', methods: ['GET'], form: false, step: upstreamDoneStep, upstreamOnly: true },
  { action: 'confirm', methods: ['POST'], form: true, step: confirmStep },
  { action: 'abort', methods: ['POST'], form: true, step: abortStep },
]

/**
 * The login and consent pages: GET `{basePath}/:uid` shows the step oidc-provider asks for;
 * POST `/:uid/login`, `/:uid/confirm` and `/:uid/abort` finish it; `/:uid/upstream` comes back from
 * an upstream identity provider. Forms carry a CSRF token bound to the interaction; a cross-origin
 * POST is refused before anything else.
 */
export function interactionRoutes(deps: InteractionDeps): Middleware {
  const routes = ROUTES.filter((route) => !route.upstreamOnly || deps.upstream !== undefined)
  const actions = routes.map((route) => route.action).filter((action) => action !== undefined)
  const escaped = deps.basePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const pattern = new RegExp(`^${escaped}/([A-Za-z0-9_-]{1,64})(?:/(${actions.join('|')}))?$`)

  const under = `${deps.basePath}/`
  const upstreamCallbackPath = deps.upstream?.callbackPath
  const applies = (path: string, method: string): boolean => path.startsWith(under) || (path === upstreamCallbackPath && method === 'GET')
  return scoped(applies, async function interactions(ctx: Context, next: Next): Promise<void> {
    if (ctx.path === upstreamCallbackPath && ctx.method === 'GET') {
      try {
        await upstreamCallback(ctx, deps)
      } catch (error) {
        page(ctx, deps, 502, 'error', 'Sign-in failed', {
          error: 'identity provider error',
          description: 'The identity provider could not be reached or answered in a way we could not use. Try again later.',
        })
        ctx.app.emit('error', error, ctx)
      }
      return
    }
    const match = pattern.exec(ctx.path)
    if (match === null) return next()
    const uid = match[1]!
    const route = routes.find((candidate) => candidate.action === match[2])!
    if (!route.methods.includes(ctx.method)) {
      ctx.status = 405
      ctx.set('allow', route.methods.join(', '))
      return
    }
    try {
      let form = new URLSearchParams()
      if (route.form) {
        const origin = ctx.get('origin')
        if (origin !== '' && origin !== deps.issuer.origin) {
          page(ctx, deps, 403, 'error', 'Request refused', { error: 'cross-origin form submission refused', description: 'Start the sign-in again from the application.' })
          return
        }
        form = await readFormBody(ctx, defaults.authServer.maxFormBytes)
        const csrf = Buffer.from(form.get('csrf') ?? '')
        const expected = Buffer.from(csrfFor(deps, uid))
        if (csrf.length !== expected.length || !timingSafeEqual(csrf, expected)) {
          page(ctx, deps, 403, 'error', 'Request refused', {
            error: 'the form has expired or was not sent by this page',
            description: 'Start the sign-in again from the application.',
          })
          return
        }
      }
      await route.step(ctx, { deps, uid }, form)
    } catch (error) {
      failed(ctx, deps, error)
    }
  })
}

/** Any failure of a step ends on the error page, with the status the error carries. */
function failed(ctx: Context, deps: InteractionDeps, error: unknown): void {
  const description =
    error instanceof InteractionMismatch || error instanceof errors.SessionNotFound || error instanceof errors.InvalidRequest
      ? 'This sign-in has expired or belongs to another browser window. Start again from the application.'
      : 'The sign-in could not be completed. Start again from the application.'
  const status = (error as { status?: number }).status ?? (error instanceof InteractionMismatch ? 400 : 500)
  page(ctx, deps, status >= 400 && status < 600 ? status : 500, 'error', 'Sign-in failed', { error: (error as { error?: string }).error ?? 'interaction_failed', description })
  // to the app's error listener: a client's mistake (a stale page, a session gone) one line, our bug a stack
  ctx.app.emit('error', error instanceof InteractionMismatch ? Object.assign(error, { expose: true, status: 400 }) : error, ctx)
}
