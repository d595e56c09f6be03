/**
 * Administering what was granted (issue 15): list grants per account and client, end one grant
 * or all of an account's or a client's (every token and code from it, the consent, the JWTs
 * through revocation), disable, enable and delete accounts, list and remove clients; in the
 * library and through the CLI, which is refused beside a running server on the same data directory.
 */
import * as oidc from 'openid-client'
import { decodeJwt } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { runCli } from '../../helpers/cli-process.js'
import { CookieJar, formLogin } from '../../helpers/form-login.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const REDIRECT = 'http://127.0.0.1/callback'
const ADA = { username: 'ada', password: 'ada password 1' }
let s: RunningAuthServer

beforeEach(async () => {
  s = await startAuthServer({
    clients: [
      {
        client_id: 'configured-app',
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
  })
  await s.as.accounts.setUser(ADA.username, ADA.password)
})
afterEach(async () => {
  await s.stop(true)
})

async function login(who = ADA): Promise<{ config: oidc.Configuration; tokens?: oidc.TokenEndpointResponse; error?: string | null }> {
  const config = await oidc.dynamicClientRegistration(
    new URL(s.issuer),
    { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Grant test app' },
    oidc.None(),
    insecure,
  )
  const { verifier, challenge } = await pkcePair()
  const state = oidc.randomState()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: `${s.origin}/mcp`,
    scope: 'mcp',
  })
  let result
  try {
    result = await formLogin(url, { ...who, redirectUri: REDIRECT, jar: new CookieJar() })
  } catch (error) {
    // the login form answered 401 again: the password was refused
    return { config, error: (error as Error).message }
  }
  const { callback, pages } = result
  if (callback.searchParams.has('error') || !pages.includes('consent')) return { config, error: callback.searchParams.get('error') ?? 'no consent page' }
  return { config, tokens: await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }) }
}

async function refreshFails(config: oidc.Configuration, refreshToken: string): Promise<boolean> {
  return oidc.refreshTokenGrant(config, refreshToken, { resource: `${s.origin}/mcp` }).then(
    () => false,
    () => true,
  )
}

describe('grants in the library', () => {
  it('lists who granted what to which client, and ends a grant with every token from it', async () => {
    const { config, tokens } = await login()
    const [grant, ...others] = await s.as.grants.list()
    expect(others).toEqual([])
    expect(grant).toMatchObject({ username: 'ada', clientId: config.clientMetadata().client_id, clientName: 'Grant test app', resources: { [`${s.origin}/mcp`]: 'mcp' } })
    expect(await s.as.grants.list({ username: 'ada' })).toHaveLength(1)
    expect(await s.as.grants.list({ clientId: 'someone-else' })).toEqual([])

    expect(await s.as.grants.revoke(grant!.grantId)).toBe(true)
    expect(await s.as.grants.list()).toEqual([])
    expect(await refreshFails(config, tokens!.refresh_token!)).toBe(true)
    // the JWT access token cannot be deleted, but its grant is now known as revoked
    await expect.poll(() => s.as.isRevoked(decodeJwt(tokens!.access_token))).toBe(true)
    expect(await s.as.grants.revoke(grant!.grantId)).toBe(false)
  })

  it('disables an account: its grants end and it cannot log in until enabled again', async () => {
    const { config, tokens } = await login()
    expect(await s.as.disableUser('ada')).toEqual({ grantsEnded: 1 })
    expect(await refreshFails(config, tokens!.refresh_token!)).toBe(true)
    expect((await login()).tokens).toBeUndefined()
    expect((await s.as.accounts.list()).find((account) => account.username === 'ada')?.disabled).toBe(true)
    await s.as.disableUser('ada', false)
    expect((await login()).tokens).toBeDefined()
  })

  it('deletes an account and ends its grants', async () => {
    const { config, tokens } = await login()
    expect(await s.as.deleteUser('ada')).toEqual({ grantsEnded: 1 })
    expect(await s.as.accounts.findByUsername('ada')).toBeUndefined()
    expect(await refreshFails(config, tokens!.refresh_token!)).toBe(true)
  })

  it('lists clients without secrets and removes a registered one with its grants, not a configured one', async () => {
    const { config } = await login()
    const clientId = config.clientMetadata().client_id
    const clients = await s.as.listClients()
    expect(clients).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ client_id: clientId, client_name: 'Grant test app', configured: false }),
        expect.objectContaining({ client_id: 'configured-app', configured: true }),
      ]),
    )
    expect(JSON.stringify(clients)).not.toMatch(/"client_secret"/)
    expect(await s.as.removeClient(clientId)).toEqual({ removed: true, grantsEnded: 1 })
    expect((await s.as.listClients()).map((client) => client.client_id)).not.toContain(clientId)
    await expect(s.as.removeClient('configured-app')).rejects.toThrow(/configuration/)
  })
})

describe('mcp-auth grants, users, clients', () => {
  it('lists and ends grants, disables and deletes accounts, lists and removes clients on a stopped server', async () => {
    const { config } = await login()
    const clientId = config.clientMetadata().client_id
    const running = await runCli(['grants', 'list', '--data-dir', s.dataDir])
    expect(running.code).not.toBe(0)
    expect(running.stderr).toMatch(/lock|running|another process/i)
    await s.stop()

    const list = await runCli(['grants', 'list', '--user', 'ada', '--data-dir', s.dataDir])
    // nothing on stderr: not even oidc-provider's Node 20 warning (issue 28, item 17)
    expect(list.stderr).toBe('')
    expect(list.stdout).toMatch(new RegExp(`^\\S+\\tada\\t${clientId} \\(Grant test app\\)\\t${s.origin}/mcp: mcp\\t`))
    expect((await runCli(['clients', 'list', '--data-dir', s.dataDir])).stdout).toContain(`${clientId}\tGrant test app`)
    const revoke = await runCli(['grants', 'revoke', '--user', 'ada', '--data-dir', s.dataDir])
    expect(revoke.stdout).toBe('1 grant ended\n')
    expect((await runCli(['grants', 'list', '--data-dir', s.dataDir])).stdout).toBe('')
    expect((await runCli(['users', 'disable', 'ada', '--data-dir', s.dataDir])).stdout).toBe('account ada disabled; 0 grants ended\n')
    expect((await runCli(['users', 'list', '--data-dir', s.dataDir])).stdout).toMatch(/^ada\t.*\tdisabled$/m)
    // `--` before the id: a generated client id may begin with '-'
    expect((await runCli(['clients', 'remove', '--data-dir', s.dataDir, '--', clientId])).stdout).toBe(`client ${clientId} removed; 0 grants ended\n`)
    expect((await runCli(['users', 'delete', 'ada', '--data-dir', s.dataDir])).stdout).toBe('account ada deleted; 0 grants ended\n')
    expect((await runCli(['users', 'list', '--data-dir', s.dataDir])).stdout).toBe('')
    // beforeEach's server is stopped: start one again so afterEach has something to stop
    s = await startAuthServer({ dataDir: s.dataDir })
  })
})
