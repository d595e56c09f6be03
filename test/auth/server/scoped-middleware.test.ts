/**
 * The authorization server's middleware stack: each request enters only the middleware meant for
 * it (issue 18), in order, with paths rewritten on the way seen by what comes after, and errors
 * and misuse surfacing as they do with koa-compose.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa, { type Context, type Middleware, type Next } from 'koa'
import compose from 'koa-compose'
import { afterEach, describe, expect, it } from 'vitest'
import { composeScoped, scoped } from '../../../src/auth/server/middleware/scoped-middleware.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

async function serve(middleware: Middleware): Promise<string> {
  const app = new Koa()
  app.silent = true
  app.use(middleware)
  app.use((ctx) => {
    ctx.body ??= 'end of stack'
  })
  const server = createServer(app.callback())
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A middleware that notes its name in `x-trail` on the way in. */
const trail =
  (name: string): Middleware =>
  (ctx: Context, next: Next) => {
    ctx.state['trail'] = [...((ctx.state['trail'] as string[] | undefined) ?? []), name]
    ctx.set('x-trail', (ctx.state['trail'] as string[]).join(','))
    return next()
  }

describe('composeScoped', () => {
  it('enters only the middleware whose scope takes the request, in order, and a rewritten path is the one later scopes see', async () => {
    const origin = await serve(
      composeScoped([
        trail('all'),
        scoped(
          (path) => path === '/alias',
          (ctx: Context, next: Next) => {
            ctx.path = '/token'
            return next()
          },
        ),
        scoped((path) => path === '/token', trail('token')),
        scoped((path) => path === '/register', trail('register')),
        scoped((_path, method) => method === 'POST', trail('post')),
        trail('last'),
      ]),
    )
    expect((await fetch(`${origin}/token`)).headers.get('x-trail')).toBe('all,token,last')
    expect((await fetch(`${origin}/alias`, { method: 'POST' })).headers.get('x-trail')).toBe('all,token,post,last')
    expect((await fetch(`${origin}/elsewhere`)).headers.get('x-trail')).toBe('all,last')
    const answer = await fetch(`${origin}/register`)
    expect(answer.headers.get('x-trail')).toBe('all,register,last')
    expect(await answer.text()).toBe('end of stack')
  })

  it('checks the scope itself when a scoped middleware runs in koa-compose or on its own', async () => {
    const origin = await serve(compose([scoped((path) => path === '/token', trail('token')), trail('last')]))
    expect((await fetch(`${origin}/token`)).headers.get('x-trail')).toBe('token,last')
    expect((await fetch(`${origin}/other`)).headers.get('x-trail')).toBe('last')
  })

  it('turns a synchronous throw into a rejection that earlier middleware can catch', async () => {
    const origin = await serve(
      composeScoped([
        (ctx: Context, next: Next) =>
          next().catch((error: Error) => {
            ctx.status = 418
            ctx.body = `caught: ${error.message}`
          }),
        scoped(
          () => true,
          () => {
            throw new Error('refused at once')
          },
        ),
      ]),
    )
    const answer = await fetch(`${origin}/`)
    expect(answer.status).toBe(418)
    expect(await answer.text()).toBe('caught: refused at once')
  })

  it('refuses a second call of next() from one middleware, as koa-compose does', async () => {
    const origin = await serve(
      composeScoped([
        (ctx: Context, next: Next) =>
          next().catch((error: Error) => {
            ctx.status = 500
            ctx.body = error.message
          }),
        async (_ctx: Context, next: Next) => {
          await next()
          await next()
        },
        scoped(() => false, trail('skipped')),
      ]),
    )
    const answer = await fetch(`${origin}/`)
    expect(answer.status).toBe(500)
    expect(await answer.text()).toBe('next() called multiple times')
  })
})
