import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import * as oidc from 'openid-client'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { formLogin } from '../helpers/form-login.js'
import { freePort } from '../helpers/free-port.js'
import { storeContents, storeText } from '../helpers/store-contents.js'

const insecure = { execute: [oidc.allowInsecureRequests] }
const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child, 'SIGKILL')))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-cli-'))
  dirs.push(dir)
  return dir
}

async function startServer(dir: string, port: number, extra: string[] = []) {
  const started = await startCli(['auth-server', '--data-dir', dir, '--port', String(port), '--issuer', `http://127.0.0.1:${port}`, ...extra])
  children.push(started.child)
  return started
}

describe('mcp-auth users / clients', () => {
  it('adds an account whose password is stored only as a scrypt hash, in 0600 files', async () => {
    const dir = await dataDir()
    const added = await runCli(['users', 'add', 'carol', '--password-stdin', '--data-dir', dir], { input: 'carol password 1\n' })
    expect(added.code).toBe(0)
    expect(added.stdout).toMatch(/account carol .* saved/)
    const file = await storeText(dir)
    expect(file).toContain('scrypt$')
    expect(file).not.toContain('carol password 1')
    for (const name of ['mcp-auth.json', 'mcp-auth.snapshot', 'mcp-auth.journal.1']) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600)
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    const listed = await runCli(['users', 'list', '--data-dir', dir])
    expect(listed.stdout).toContain('carol')
  })

  it('keeps the scopes each account may be granted: users add --scopes, set-scopes, shown by list', async () => {
    // Issue 13, item 2.
    const dir = await dataDir()
    const env = { MCP_AUTH_PASSWORD: 'some password 1' }
    expect((await runCli(['users', 'add', 'admin', '--scopes', 'mcp mcp:admin', '--data-dir', dir], { env })).code).toBe(0)
    expect((await runCli(['users', 'add', 'plain', '--data-dir', dir], { env })).code).toBe(0)
    let listed = (await runCli(['users', 'list', '--data-dir', dir])).stdout
    expect(listed).toMatch(/^admin\t\S+\tmcp mcp:admin$/m)
    expect(listed).toMatch(/^plain\t\S+\t\(default scopes\)$/m)
    const set = await runCli(['users', 'set-scopes', 'admin', 'mcp', '--data-dir', dir])
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('may be granted: mcp')
    expect((await runCli(['users', 'set-scopes', 'plain', 'mcp:admin', '--data-dir', dir])).code).toBe(0)
    expect((await runCli(['users', 'set-scopes', 'plain', '--default', '--data-dir', dir])).code).toBe(0)
    listed = (await runCli(['users', 'list', '--data-dir', dir])).stdout
    expect(listed).toMatch(/^admin\t\S+\tmcp$/m)
    expect(listed).toMatch(/^plain\t\S+\t\(default scopes\)$/m)
    const missing = await runCli(['users', 'set-scopes', 'nobody', 'mcp', '--data-dir', dir])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no account named nobody')
    expect((await runCli(['users', 'set-scopes', 'admin', '--data-dir', dir])).code).toBe(2)
    expect((await runCli(['users', 'add', 'x', '--scopes', 'bad"scope', '--data-dir', dir], { env })).code).toBe(2)
  })

  it('refuses to write the data directory of a running server', async () => {
    const dir = await dataDir()
    await startServer(dir, await freePort())
    const refused = await runCli(['users', 'add', 'dave', '--data-dir', dir], { env: { MCP_AUTH_PASSWORD: 'dave password 1' } })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/in use by process \d+/)
  })

  it('pre-registers a confidential client whose secret is shown once and works at the token endpoint', async () => {
    const dir = await dataDir()
    const added = await runCli(['clients', 'add', '--name', 'Batch job', '--data-dir', dir])
    expect(added.code).toBe(0)
    const clientId = /client_id: (\S+)/.exec(added.stdout)![1]!
    const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!
    expect(await storeText(dir)).not.toContain(secret)
    const bad = await runCli(['clients', 'add', '--name', 'Bad', '--redirect-uri', 'http://evil.example/cb', '--data-dir', dir])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('invalid client metadata: http://evil.example/cb must use https, or http on a loopback host')
    const { url } = await startServer(dir, await freePort())
    const server = (await oidc.discovery(new URL(url), clientId, undefined, undefined, insecure)).serverMetadata()
    const config = new oidc.Configuration(server, clientId, {}, oidc.ClientSecretBasic(secret))
    oidc.allowInsecureRequests(config)
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'mcp' })
    expect(tokens.access_token).toBeTypeOf('string')
  })
})

describe('mcp-auth auth-server restarts', () => {
  it('keeps clients, accounts, grants and signing keys across a restart on the same data directory', async () => {
    const dir = await dataDir()
    const port = await freePort()
    await runCli(['users', 'add', 'erin', '--data-dir', dir], { env: { MCP_AUTH_PASSWORD: 'erin password 1' } })
    const first = await startServer(dir, port)
    const config = await oidc.dynamicClientRegistration(new URL(first.url), { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }, oidc.None(), insecure)
    const verifier = oidc.randomPKCECodeVerifier()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1/cb',
      scope: 'mcp',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    const { callback } = await formLogin(url, { username: 'erin', password: 'erin password 1', redirectUri: 'http://127.0.0.1/cb' })
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })
    const jwks = await (await fetch(`${first.url}/jwks`)).json()
    await stopChild(first.child)

    const second = await startServer(dir, port)
    expect(await (await fetch(`${second.url}/jwks`)).json()).toEqual(jwks)
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!)
    expect(refreshed.access_token).toBeTypeOf('string')
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
  })

  it('kill -9 during a burst of registrations leaves a parseable file holding every 201', async () => {
    const dir = await dataDir()
    const port = await freePort()
    const { writeFile } = await import('node:fs/promises')
    // The burst must not be cut short by the registration rate limit, nor by the unused-registration caps.
    await writeFile(
      join(dir, 'burst.json'),
      JSON.stringify({ rateLimits: { registrationPerAddress: 1_000_000 }, registration: { maxUnusedPerAddress: 1_000_000, maxUnused: 1_000_000 } }),
    )
    const { child, url } = await startServer(dir, port, ['--config', join(dir, 'burst.json')])
    const acknowledged: string[] = []
    let stop = false
    const burst = async (): Promise<void> => {
      while (!stop) {
        try {
          const response = await fetch(`${url}/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
          })
          if (response.status === 201) acknowledged.push(((await response.json()) as { client_id: string }).client_id)
          else await response.body?.cancel()
        } catch {
          return
        }
      }
    }
    const workers = Array.from({ length: 8 }, burst)
    await new Promise((resolve) => setTimeout(resolve, 700))
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    stop = true
    await Promise.all(workers)
    expect(acknowledged.length).toBeGreaterThan(50)
    const stored = await storeContents(dir)
    const missing = acknowledged.filter((id) => !(id in (stored.models['Client'] ?? {})))
    expect(missing).toEqual([])
    // And the server starts again on that file (the dead process's lock is taken over).
    const again = await startServer(dir, port)
    expect((await fetch(`${again.url}/.well-known/oauth-authorization-server`)).status).toBe(200)
  })
})

describe('mcp-auth keys rotate', () => {
  it('signs with new keys after a restart while tokens signed before still verify', async () => {
    const { createLocalJWKSet, decodeProtectedHeader, jwtVerify } = await import('jose')
    const dir = await dataDir()
    const port = await freePort()
    const added = await runCli(['clients', 'add', '--name', 'Rotating', '--data-dir', dir])
    const clientId = /client_id: (\S+)/.exec(added.stdout)![1]!
    const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!
    const token = async (url: string): Promise<string> => {
      const server = (await oidc.discovery(new URL(url), clientId, undefined, undefined, insecure)).serverMetadata()
      const config = new oidc.Configuration(server, clientId, {}, oidc.ClientSecretBasic(secret))
      oidc.allowInsecureRequests(config)
      return (await oidc.clientCredentialsGrant(config, { scope: 'mcp' })).access_token
    }
    const first = await startServer(dir, port)
    const before = await token(first.url)
    await stopChild(first.child)
    const rotated = await runCli(['keys', 'rotate', '--data-dir', dir])
    expect(rotated.code).toBe(0)
    const second = await startServer(dir, port)
    const after = await token(second.url)
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid)
    const jwks = createLocalJWKSet((await (await fetch(`${second.url}/jwks`)).json()) as { keys: [] })
    for (const jwt of [before, after]) {
      expect((await jwtVerify(jwt, jwks, { issuer: second.url, audience: `http://127.0.0.1:${port}/mcp` })).payload.client_id).toBe(clientId)
    }
  })
})

describe('mcp-auth auth-server options', () => {
  it('refuses an http issuer that is not loopback, and unknown configuration keys, with a clear message', async () => {
    const dir = await dataDir()
    const insecureIssuer = await runCli(['auth-server', '--data-dir', dir, '--issuer', 'http://auth.example.com', '--port', '0'])
    expect(insecureIssuer.code).toBe(1)
    expect(insecureIssuer.stderr).toContain('issuer must use https')
    const { writeFile } = await import('node:fs/promises')
    await writeFile(join(dir, 'config.json'), JSON.stringify({ issuer: 'https://auth.example.com', registraton: {} }))
    const unknown = await runCli(['auth-server', '--data-dir', dir, '--config', join(dir, 'config.json'), '--port', '0'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/registraton/)
  })
})
