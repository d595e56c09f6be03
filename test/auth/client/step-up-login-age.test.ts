// issue 32: RFC 9470 step-up in the login helper, against our own admin API
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Context, Next } from 'koa'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { defaults } from '../../../src/config/defaults.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { formHandoff } from '../../helpers/form-handoff.js'
import { startProtectedStack, type ProtectedStack } from '../../helpers/protected-stack.js'

const root = { username: 'root', password: 'root password 1' }
const MAX_AGE = 2
const SENSITIVE_AGE = 3

let stack: ProtectedStack
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-step-up-'))
  stack = await startProtectedStack({ as: { admin: { maxLoginAgeSeconds: 30, sensitiveLoginAgeSeconds: SENSITIVE_AGE } } })
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser('carol', 'carol password 1')
  await stack.as.accounts.setUser('dave', 'dave password 1')
})
afterAll(async () => {
  await stack?.stop()
  await rm(dir, { recursive: true, force: true })
})

/** A fetch that records the grant type of every token request. */
function grantRecorder(): typeof fetch & { grants: string[] } {
  const grants: string[] = []
  const recorder = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.pathname === '/token') grants.push(new URLSearchParams(String(init?.body ?? '')).get('grant_type') ?? '?')
    return fetch(input, init)
  }
  return Object.assign(recorder, { grants }) as typeof fetch & { grants: string[] }
}

function helper(name: string, options: { loginOutsideFetch?: boolean; stack?: ProtectedStack } = {}) {
  const target = options.stack ?? stack
  const handoff = formHandoff(root)
  const recorded = grantRecorder()
  const auth = new McpOAuth(`${target.origin}/admin/api`, {
    store: new FileTokenStore(join(dir, `${name}.json`)),
    handoff,
    fetch: recorded,
    ...(options.loginOutsideFetch !== undefined ? { loginOutsideFetch: options.loginOutsideFetch } : {}),
  })
  return { auth, handoff, grants: recorded.grants, api: (path: string) => `${target.origin}/admin/api${path}` }
}

describe('McpOAuth: 401 insufficient_user_authentication (RFC 9470)', () => {
  it('signs in again with max_age instead of refreshing when the sign-in is too old, then retries', async () => {
    const older = await startProtectedStack({ as: { admin: { maxLoginAgeSeconds: MAX_AGE } } })
    try {
      await older.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
      const { auth, handoff, grants, api } = helper('max-age', { stack: older })
      expect((await auth.fetch(api('/accounts'))).status).toBe(200)
      expect(handoff.urls).toHaveLength(1)
      expect(handoff.urls[0]!.searchParams.has('max_age')).toBe(false)
      // it could refresh: the login left a refresh token
      expect((await auth.storedTokens())?.refresh_token).toBeDefined()
      await sleep((MAX_AGE + 1) * 1000)
      const answer = await auth.fetch(api('/accounts'))
      expect(answer.status).toBe(200)
      expect(handoff.urls).toHaveLength(2)
      expect(handoff.urls[1]!.searchParams.get('max_age')).toBe(String(MAX_AGE))
      // a refresh would keep the old auth_time: code exchanges only (each maybe twice, for a DPoP nonce)
      expect(grants).toContain('authorization_code')
      expect(grants).not.toContain('refresh_token')
    } finally {
      await older.stop()
    }
  }, 30_000)

  it('steps up for a sensitive action (making an administrator) with the shorter max_age', async () => {
    const { auth, handoff, api } = helper('sensitive')
    expect((await auth.fetch(api('/accounts/carol'))).status).toBe(200)
    await sleep((SENSITIVE_AGE + 1) * 1000)
    // an ordinary read needs no new sign-in yet
    expect((await auth.fetch(api('/accounts/carol'))).status).toBe(200)
    expect(handoff.urls).toHaveLength(1)
    const changed = await auth.fetch(api('/accounts/carol'), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'admin' }) })
    expect(changed.status).toBe(200)
    expect(((await changed.json()) as { role: string }).role).toBe('admin')
    expect(handoff.urls).toHaveLength(2)
    expect(handoff.urls[1]!.searchParams.get('max_age')).toBe(String(SENSITIVE_AGE))
  }, 30_000)

  it('with loginOutsideFetch, hands the refusal back and loginAsked() signs in with max_age', async () => {
    const { auth, handoff, api } = helper('outside', { loginOutsideFetch: true })
    await auth.ensureLogin()
    expect(handoff.urls).toHaveLength(1)
    await sleep((SENSITIVE_AGE + 1) * 1000)
    const patch = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'admin' }) }
    const refused = await auth.fetch(api('/accounts/dave'), patch)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_user_authentication')
    expect(handoff.urls).toHaveLength(1)
    expect(await auth.loginAsked()).toBe(true)
    expect(handoff.urls[1]!.searchParams.get('max_age')).toBe(String(SENSITIVE_AGE))
    expect((await auth.fetch(api('/accounts/dave'), patch)).status).toBe(200)
  }, 30_000)

  it('gives up after maxStepUps sign-ins when every one is still refused, answering the last refusal', async () => {
    // a resource that finds every sign-in too old, whatever its age
    const alwaysOld = async (ctx: Context, next: Next): Promise<void> => {
      if (ctx.path !== '/admin/api/always-old') return next()
      ctx.status = 401
      ctx.set('www-authenticate', `Bearer error="insufficient_user_authentication", max_age="1", resource_metadata="${ctx.origin}/.well-known/oauth-protected-resource/admin/api"`)
    }
    const strict: ProtectedStack = await startProtectedStack({ mcp: { middleware: [alwaysOld, (ctx, next) => strict.as.middleware(ctx, next)] } })
    try {
      await strict.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
      const { auth, handoff, api } = helper('limit', { stack: strict })
      expect((await auth.fetch(api('/accounts'))).status).toBe(200)
      const answer = await auth.fetch(api('/always-old'))
      expect(answer.status).toBe(401)
      expect(handoff.urls).toHaveLength(1 + defaults.oauthClient.maxStepUps)
      expect(handoff.urls.slice(1).every((url) => url.searchParams.get('max_age') === '1')).toBe(true)
    } finally {
      await strict.stop()
    }
  }, 30_000)
})
