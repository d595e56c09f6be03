/**
 * Issue 27, item 4: a trusted issuer known by discovery that refuses connections, one that never
 * answers, and one that comes up later. `mcp-auth start` stays up (a failed discovery used to be
 * an unhandled rejection that ended the process), logs each in one line, refuses only that
 * issuer's assertions with an invalid_grant naming it unavailable, and accepts the late one's
 * assertions once it answers, without a restart.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const INLINE = 'https://platform.example.com'
let dir: string
let key: CryptoKey
let publicJwk: JWK
let child: ChildProcess
let output: () => string
let origin: string
let refusing: string
let hanging: string
let late: string
let latePort: number
let hangServer: TcpServer
const hungSockets = new Set<Socket>()
let lateServer: Server | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-jwt-bearer-unavailable-'))
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }
  // nothing listens here
  refusing = `http://127.0.0.1:${await freePort()}`
  // accepts connections and never answers
  hangServer = createTcpServer((socket) => {
    hungSockets.add(socket)
    socket.on('close', () => hungSockets.delete(socket))
  })
  await new Promise<void>((resolve) => hangServer.listen(0, '127.0.0.1', resolve))
  hanging = `http://127.0.0.1:${(hangServer.address() as { port: number }).port}`
  latePort = await freePort()
  late = `http://127.0.0.1:${latePort}`
  const config = join(dir, 'auth-server.json')
  const discovered = (issuer: string, sub: string) => ({ issuer, allowPrivateAddresses: true, subjects: { [sub]: { client: 'job' } } })
  await writeFile(
    config,
    JSON.stringify({
      clients: [{ client_id: 'job', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [], redirect_uris: [], scope: 'mcp' }],
      jwtBearer: {
        issuers: [
          { issuer: INLINE, jwks: { keys: [publicJwk] }, subjects: { inline: { client: 'job' } } },
          discovered(refusing, 'refusing'),
          discovered(hanging, 'hanging'),
          discovered(late, 'late'),
        ],
      },
    }),
  )
  const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'data'), '--config', config], { env: { MCP_AUTH_DEMO_PASSWORD: 'unavailable issuers pw' } })
  child = started.child
  output = started.output
  origin = new URL(started.url).origin
})
afterAll(async () => {
  if (child !== undefined) await stopChild(child)
  for (const socket of hungSockets) socket.destroy()
  hangServer?.close()
  lateServer?.close()
  await rm(dir, { recursive: true, force: true })
})

function assertion(issuer: string, sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub, aud: origin, jti: randomUUID(), iat: now, exp: now + 300 }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(issuer).sign(key)
}

async function grant(issuer: string, sub: string): Promise<{ status: number; body: Record<string, string>; ms: number }> {
  const began = Date.now()
  const response = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await assertion(issuer, sub), client_id: 'job' }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string>, ms: Date.now() - began }
}

async function until(pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!pattern.test(output())) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mcp-auth start exited:\n${output()}`)
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('a trusted issuer whose discovery fails', () => {
  it('refuses only that issuer while it is away, and accepts it once it answers, with no restart', async () => {
    // refused connection: logged in one line, and the process lives on
    await until(new RegExp(`trusted issuer ${escaped(refusing)} is unavailable \\(.*\\); its assertions are refused until it answers; next try in`), 10_000)
    const refused = await grant(refusing, 'refusing')
    expect(refused.status).toBe(400)
    expect(refused.body['error']).toBe('invalid_grant')
    expect(refused.body['error_description']).toBe(`the assertion's issuer ${refusing} is unavailable right now (its metadata or keys cannot be fetched); try again later`)
    // the other issuers are not affected
    expect((await grant(INLINE, 'inline')).status).toBe(200)

    // the late issuer comes up: the background retry finds it
    await until(new RegExp(`trusted issuer ${escaped(late)} is unavailable`), 10_000)
    lateServer = createHttpServer((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server')
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: late, jwks_uri: `${late}/jwks` }))
      else if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }))
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => lateServer!.listen(latePort, '127.0.0.1', resolve))
    await until(new RegExp(`trusted issuer ${escaped(late)} is available again`), 15_000)
    expect((await grant(late, 'late')).status).toBe(200)

    // the issuer that never answers: given up within the outbound budget, logged, refused at once
    await until(new RegExp(`trusted issuer ${escaped(hanging)} is unavailable`), 15_000)
    const hung = await grant(hanging, 'hanging')
    expect(hung.body['error_description']).toBe(`the assertion's issuer ${hanging} is unavailable right now (its metadata or keys cannot be fetched); try again later`)
    expect(hung.ms).toBeLessThan(2_000)

    // one line per failure, never a stack trace; the process is still serving
    expect(output()).not.toMatch(/\n\s+at /)
    expect(output()).not.toMatch(/unhandled/i)
    expect(child.exitCode).toBeNull()
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(200)
  }, 45_000)
})
