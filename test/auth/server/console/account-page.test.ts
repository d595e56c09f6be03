import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as oidc from 'openid-client'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'
import { authorizeWithForm, type CookieJar } from '../../../helpers/form-login.js'
import { pkcePair } from '../../../helpers/pkce-pair.js'

let stack: ProtectedStack
const lee = { username: 'lee', password: 'lee password 1' }

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(lee.username, lee.password, {}, ['mcp'])
})
afterAll(() => stack.stop())

/** Follows an authorization request with a browser's cookies to the first page it shows. */
async function firstPage(jar: CookieJar): Promise<string> {
  const redirectUri = 'http://127.0.0.1:9/callback'
  const config = await oidc.dynamicClientRegistration(new URL(stack.origin), { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  })
  const { challenge } = await pkcePair()
  let url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } })
    jar.store(response, url)
    const location = response.headers.get('location')
    if (location === null) return response.text()
    url = new URL(location, url)
  }
  throw new Error('too many redirects')
}

describe("people's own page at /account", () => {
  it('lists the applications a person allowed and revokes one of them', async () => {
    await authorizeWithForm(stack.origin, lee, 'http://127.0.0.1:9/callback')
    const grant = (await stack.as.administration.grants.list({ username: 'lee' })).find((candidate) => candidate.clientId !== 'mcp-auth-console')!
    const leeBrowser = new ConsoleVisitor(stack.origin, lee)
    const page = await leeBrowser.open('/account')
    expect(page.status).toBe(200)
    expect(leeBrowser.signIns[0]!.searchParams.get('resource')).toBe(`${stack.origin}/account`)
    expect(page.html).toContain(grant.clientId)
    // the console's own sign-in is not listed as an application
    expect(page.html).not.toContain('revoke-mcp-auth-console')
    const after = await leeBrowser.submit('/account', `revoke-${grant.clientId}`)
    expect(after.url.pathname).toBe('/account')
    expect(after.html).toContain('Access ended')
    expect(after.html).not.toContain(`revoke-${grant.clientId}`)
    expect((await stack.as.administration.grants.list({ username: 'lee' })).some((candidate) => candidate.grantId === grant.grantId)).toBe(false)
  })

  it('refuses to revoke a grant that is not the person’s own', async () => {
    await stack.as.accounts.setUser('kim', 'kim password 1', {}, ['mcp'])
    await authorizeWithForm(stack.origin, { username: 'kim', password: 'kim password 1' }, 'http://127.0.0.1:9/callback')
    const kims = (await stack.as.administration.grants.list({ username: 'kim' })).find((candidate) => candidate.clientId !== 'mcp-auth-console')!
    const leeBrowser = new ConsoleVisitor(stack.origin, lee)
    const page = await leeBrowser.open('/account')
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!
    await leeBrowser.open(`/account/grants/${kims.grantId}/revoke`, { form: { csrf } })
    expect((await stack.as.administration.grants.list({ username: 'kim' })).some((candidate) => candidate.grantId === kims.grantId)).toBe(true)
  })

  it('changes the password with the current one, ending the other sessions but not this one', async () => {
    const here = new ConsoleVisitor(stack.origin, lee)
    const there = new ConsoleVisitor(stack.origin, lee)
    expect((await here.open('/account')).status).toBe(200)
    expect((await there.open('/account')).status).toBe(200)
    // sign-ins count by the second: the change comes in a later one
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const wrong = await here.submit('/account', 'change', { current: 'not it at all', password: 'lee password 2', confirm: 'lee password 2' })
    expect(wrong.status).toBe(400)
    expect(wrong.html).toContain('The current password is not right.')
    const changed = await here.submit('/account', 'change', { current: lee.password, password: 'lee password 2', confirm: 'lee password 2' })
    expect(changed.html).toContain('Password changed')
    const account = await stack.as.accounts.findByUsername('lee')
    expect(await stack.as.accounts.checkPassword(account!.id, 'lee password 2')).toBe(true)
    // this session goes on, without signing in again
    const signInsBefore = here.signIns.length
    expect((await here.open('/account')).status).toBe(200)
    expect(here.signIns.length).toBe(signInsBefore)
    // the other one is sent to sign in again, with max_age=0
    const refused = await fetch(`${stack.origin}/account`, { redirect: 'manual', headers: { cookie: there.jar.header(new URL(`${stack.origin}/account`)) } })
    expect(refused.status).toBe(302)
    expect(new URL(refused.headers.get('location')!).searchParams.get('max_age')).toBe('0')
    // and its browser session at the authorization server is over: the login page, not a silent sign-in
    expect(await firstPage(there.jar)).toContain('id="sign-in"')
  })
})
