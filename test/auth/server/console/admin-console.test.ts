import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'
import { authorizeWithForm } from '../../../helpers/form-login.js'

let stack: ProtectedStack
const root = { username: 'root', password: 'root password 1' }
const pat = { username: 'pat', password: 'pat password 1' }

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser(pat.username, pat.password, {}, ['mcp'])
})
afterAll(() => stack.stop())
afterEach(() => vi.useRealTimers())

describe('the console at /admin', () => {
  it('signs an administrator in through the authorization endpoint, without a consent page, and serves the overview', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    const page = await root1.open('/admin')
    expect(page.status).toBe(200)
    expect(page.url.pathname).toBe('/admin')
    expect(page.html).toContain('<h1>Overview</h1>')
    expect(page.html).toContain('id="count-admins">1<')
    const signIn = root1.signIns[0]!
    expect(signIn.searchParams.get('client_id')).toBe('mcp-auth-console')
    expect(signIn.searchParams.get('resource')).toBe(`${stack.origin}/admin/api`)
    expect(signIn.searchParams.get('scope')).toBe('mcp-auth:admin')
    expect(signIn.searchParams.get('code_challenge_method')).toBe('S256')
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("form-action 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/)
    expect(page.headers.get('cache-control')).toBe('no-store')
    const cookie = page.headers.get('set-cookie') ?? ''
    // the session cookie was set at the callback; no token is visible in it
    expect(root1.jar.header(new URL(`${stack.origin}/admin`))).toMatch(/mcp-auth-console=enc/)
    expect(cookie).not.toContain('eyJ')
    // the console is a configured client: listed as such, never removed by an administrator
    expect((await stack.as.administration.clients.list()).find((client) => client.client_id === 'mcp-auth-console')).toMatchObject({ configured: true })
    await expect(stack.as.administration.clients.remove('mcp-auth-console')).rejects.toMatchObject({ code: 'configured_client' })
  })

  it('creates an account, disables and enables it, and hands out a one-time set-password link that works once', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    const created = await root1.submit('/admin/accounts', 'create', { username: 'dana', password: '' })
    expect(created.status).toBe(200)
    const link = /value="(http[^"]+\/admin\/password\/[A-Za-z0-9_-]+)"/.exec(created.html)?.[1]
    expect(link).toBeDefined()
    const disabled = await root1.submit('/admin/accounts/dana', 'disable')
    expect(disabled.url.pathname).toBe('/admin/accounts/dana')
    expect(disabled.html).toContain('id="state">disabled<')
    expect((await stack.as.accounts.findByUsername('dana'))?.disabled).toBe(true)
    const enabled = await root1.submit('/admin/accounts/dana', 'enable')
    expect(enabled.html).toContain('id="state">active<')

    const holder = new ConsoleVisitor(stack.origin, { username: 'dana', password: 'dana password 1' })
    const set = await holder.submit(new URL(link!).pathname, 'set', { password: 'dana password 1', confirm: 'dana password 1' })
    expect(set.status).toBe(200)
    expect(set.html).toContain('id="password-set"')
    const account = await stack.as.accounts.findByUsername('dana')
    expect(await stack.as.accounts.checkPassword(account!.id, 'dana password 1')).toBe(true)
    const again = await holder.open(new URL(link!).pathname)
    expect(again.status).toBe(410)
  })

  it('refuses a form without the session’s CSRF token, and a form from another origin', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    await root1.open('/admin')
    const forged = await root1.open('/admin/accounts/pat/disable', { form: { csrf: 'x'.repeat(43) } })
    expect(forged.status).toBe(403)
    expect(forged.html).toContain('was not sent by this page')
    const crossOrigin = await root1.submit('/admin/accounts/pat', 'disable', {}, { origin: 'https://evil.example' })
    expect(crossOrigin.status).toBe(403)
    expect(crossOrigin.html).toContain('cross-origin')
    const crossSite = await root1.submit('/admin/accounts/pat', 'disable', {}, { 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    expect((await stack.as.accounts.findByUsername('pat'))?.disabled).not.toBe(true)
  })

  it('tells a person who is not an administrator so, and sets no console session', async () => {
    const visitor = new ConsoleVisitor(stack.origin, pat)
    const page = await visitor.open('/admin/accounts')
    expect(page.status).toBe(403)
    expect(page.html).toContain('id="not-admin"')
    expect(visitor.jar.header(new URL(`${stack.origin}/admin`))).not.toMatch(/mcp-auth-console=/)
  })

  it('asks for a fresh sign-in (max_age) before a sensitive action when the sign-in is older than five minutes', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    await root1.open('/admin/accounts/pat')
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 6 * 60_000 })
    const made = await root1.submit('/admin/accounts/pat', 'make-admin')
    const stepUp = root1.signIns.at(-1)!
    expect(stepUp.searchParams.get('max_age')).toBe('300')
    // back on the page the form was on, nothing done yet: the person confirms by submitting again
    expect(made.url.pathname).toBe('/admin/accounts/pat')
    expect(made.html).toContain('id="role">account<')
    const again = await root1.submit('/admin/accounts/pat', 'make-admin')
    expect(again.html).toContain('id="role">administrator<')
    await root1.submit('/admin/accounts/pat', 'remove-admin')
  })

  it('ends a grant an account gave a client, from the account page', async () => {
    const { callback } = await authorizeWithForm(stack.origin, pat, 'http://127.0.0.1:9/callback')
    expect(callback.searchParams.get('code')).not.toBeNull()
    const root1 = new ConsoleVisitor(stack.origin, root)
    const before = await root1.open('/admin/accounts/pat')
    const grant = (await stack.as.administration.grants.list({ username: 'pat' })).find((candidate) => candidate.clientId !== 'mcp-auth-console')!
    expect(before.html).toContain(`/admin/grants/${grant.grantId}/revoke`)
    const after = await root1.submit('/admin/accounts/pat', `revoke-${grant.grantId}`)
    expect(after.url.pathname).toBe('/admin/accounts/pat')
    expect(after.html).toContain('Grant ended.')
    expect((await stack.as.administration.grants.list({ username: 'pat' })).some((candidate) => candidate.grantId === grant.grantId)).toBe(false)
  })
})

describe('the console’s session', () => {
  it('refreshes an expired access token in-process, and sends a sign-in older than an hour back with max_age', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    await root1.open('/admin')
    const cookieBefore = root1.jar.header(new URL(`${stack.origin}/admin`))
    // 61 minutes on: the access token (10 min) has expired, the sign-in is older than the console allows
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61 * 60_000 })
    const page = await root1.open('/admin/accounts')
    expect(page.status).toBe(200)
    expect(page.url.pathname).toBe('/admin/accounts')
    expect(root1.signIns.at(-1)!.searchParams.get('max_age')).toBe('3600')
    expect(root1.jar.header(new URL(`${stack.origin}/admin`))).not.toBe(cookieBefore)
  })

  it('closes the console to an administrator disabled meanwhile, at the next page', async () => {
    await stack.as.accounts.setUser('ops', 'ops password 1', {}, undefined, 'admin')
    const ops = new ConsoleVisitor(stack.origin, { username: 'ops', password: 'ops password 1' })
    expect((await ops.open('/admin')).status).toBe(200)
    await stack.as.administration.accounts.disable('ops')
    // its grants ended with it: no refresh; back at the login page, which refuses a disabled account
    await expect(ops.open('/admin')).rejects.toThrow(/unexpected 401 at .*\/interaction\//)
    expect(ops.signIns.length).toBe(2)
  })

  it('closes the console to an administrator made an ordinary account meanwhile, with the not-an-administrator page', async () => {
    await stack.as.accounts.setUser('ops2', 'ops2 password 1', {}, undefined, 'admin')
    const ops2 = new ConsoleVisitor(stack.origin, { username: 'ops2', password: 'ops2 password 1' })
    expect((await ops2.open('/admin')).status).toBe(200)
    await stack.as.administration.accounts.setRole('ops2', undefined)
    const refused = await ops2.open('/admin')
    expect(refused.status).toBe(403)
    expect(refused.html).toContain('id="not-admin"')
  })

  it('signs out: the console’s grant ends (a copy of the cookie is worth nothing) and the server asks to end the browser session', async () => {
    const root1 = new ConsoleVisitor(stack.origin, root)
    await root1.open('/admin')
    const copied = root1.jar.header(new URL(`${stack.origin}/admin`))
    const out = await root1.submit('/admin', 'sign-out')
    expect(out.url.pathname).toBe('/session/end')
    expect(out.html).toContain('Sign out?')
    expect(root1.jar.header(new URL(`${stack.origin}/admin`))).not.toMatch(/mcp-auth-console=/)
    const replayed = await fetch(`${stack.origin}/admin`, { redirect: 'manual', headers: { cookie: copied } })
    expect(replayed.status).toBe(302)
    expect(new URL(replayed.headers.get('location')!).pathname).toBe('/authorize')
  })

  it('asks to confirm before deleting an account', async () => {
    await stack.as.accounts.setUser('temp', 'temp password 1', {}, ['mcp'])
    const root1 = new ConsoleVisitor(stack.origin, root)
    const asked = await root1.submit('/admin/accounts/temp', 'delete')
    expect(asked.html).toContain('Delete temp?')
    expect(await stack.as.accounts.findByUsername('temp')).toBeDefined()
    const page = await root1.open('/admin/accounts/temp')
    expect(page.status).toBe(200)
  })
})
