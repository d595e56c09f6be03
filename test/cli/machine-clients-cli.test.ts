/**
 * Issue 28, machines from the CLI and the CLI's rough edges, against `mcp-auth start`: a
 * confidential client_credentials client gets its token without a browser (4); machine tokens
 * are kept in the token store, so a second run presents no assertion again (5); a reader that
 * closes the pipe early ends `tools` quietly (8); `proxy` given initialize and the next requests in
 * one write queues them until the session exists (9).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMainJob } from '../helpers/cli-process.js'
import { CLI_PATH } from '../helpers/paths.js'

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const PLATFORM = 'https://platform.example.com'
const SECRET = 'reporter secret that is long enough 0123456789'
let dir: string
let key: CryptoKey
let origin: string
let stop: () => Promise<void>

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-machine-cli-'))
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  const config = join(dir, 'auth-server.json')
  await writeFile(
    config,
    JSON.stringify({
      clients: [
        { client_id: 'reporter', client_secret: SECRET, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'mcp' },
        { client_id: 'nightly-job', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [], redirect_uris: [], scope: 'mcp' },
      ],
      jwtBearer: {
        issuers: [
          {
            issuer: PLATFORM,
            jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'p1', alg: 'ES256' }] },
            subjects: { 'system:serviceaccount:jobs:nightly': { client: 'nightly-job' } },
          },
        ],
      },
    }),
  )
  const job = await startMainJob('machine cli password', 'mcp-auth-machine-cli-job-', ['--config', config])
  origin = job.origin
  stop = job.stop
})
afterAll(async () => {
  await stop?.()
  await rm(dir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `mcp-auth <args>`, killed after `ms` (a command waiting for a browser that never comes). */
function run(args: string[], options: { ms?: number; env?: Record<string, string>; closeStdout?: boolean; input?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } })
    let stdout = ''
    let stderr = ''
    // a reader that stops at once, as `| head -0` would: the command's writes meet a closed pipe
    if (options.closeStdout === true) child.stdout.destroy()
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 10_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

function platformToken(): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: 'system:serviceaccount:jobs:nightly', aud: origin, jti: randomUUID(), iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(PLATFORM)
    .sign(key)
}

const reporter = ['--client-id', 'reporter', '--client-secret', SECRET]

describe('machine clients from the CLI (issue 28)', () => {
  it('gets a client_credentials client its token without a browser, in every client command (item 4)', async () => {
    const store = join(dir, 'item4.json')
    const tools = await run(['tools', `${origin}/mcp`, ...reporter, '--no-browser', '--store', store])
    expect(tools.stderr).not.toContain('open this URL')
    expect(tools.code, tools.stderr).toBe(0)
    expect(tools.stdout).toContain('whoami')
    const call = await run(['call', `${origin}/mcp`, 'whoami', ...reporter, '--client-credentials', '--no-browser', '--store', store])
    expect(call.code, call.stderr).toBe(0)
    expect(call.stdout).toContain('reporter')
    const token = await run(['token', `${origin}/mcp`, ...reporter, '--no-browser', '--store', store])
    expect(token.code, token.stderr).toBe(0)
    expect(token.stdout.trim()).toMatch(/^[\w.-]{20,}$/)
    // start's metadata lists DPoP: tools and call keep a bound machine token, token one of its own
    // beside it, a Bearer token a script can use (issue 28, item 1); logout forgets both, as a user login's
    const kept = (JSON.parse(await readFile(store, 'utf8')) as { tokens: Record<string, { token_type: string }> }).tokens
    expect(
      Object.values(kept)
        .map((entry) => entry.token_type.toLowerCase())
        .sort(),
    ).toEqual(['bearer', 'dpop'])
    const logout = await run(['logout', `${origin}/mcp`, '--store', store])
    expect(logout.code, logout.stderr).toBe(0)
    expect((JSON.parse(await readFile(store, 'utf8')) as { tokens: object }).tokens).toEqual({})
  })

  it('reports a refused client credentials grant (a wrong secret) without a browser (item 4)', async () => {
    const refused = await run(['tools', `${origin}/mcp`, '--client-id', 'reporter', '--client-secret', 'not the secret', '--no-browser', '--store', join(dir, 'refused.json')])
    expect(refused.stderr).not.toContain('open this URL')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('invalid_client')
    expect(refused.stderr).not.toMatch(/\n\s+at /)
  })

  it('takes the secret from a file or the environment, so it need not be on a command line others can read', async () => {
    const file = join(dir, 'reporter.secret')
    await writeFile(file, `${SECRET}\n`, { mode: 0o600 })
    const whoami = (store: string, ...options: string[]) => ['call', `${origin}/mcp`, 'whoami', '--client-id', 'reporter', ...options, '--store', join(dir, store)]
    const fromFile = await run(whoami('secret-file.json', '--client-secret-file', file, '--client-credentials'))
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.stdout).toContain('reporter')
    const fromEnv = await run(whoami('secret-env.json', '--client-credentials'), { env: { MCP_AUTH_CLIENT_SECRET: SECRET } })
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
    expect(fromEnv.stdout).toContain('reporter')
    const both = await run(whoami('both.json', '--client-secret', SECRET, '--client-secret-file', file))
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('give the client secret one way')
    const missing = await run(whoami('missing.json', '--client-secret-file', join(dir, 'no-such.secret')))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('ENOENT')
    expect(missing.stderr).not.toContain(SECRET)
  })

  it('keeps machine tokens until they expire: a second run reuses them, presenting no assertion again (item 5)', async () => {
    const store = join(dir, 'item5.json')
    const assertion = join(dir, 'assertion.jwt')
    await writeFile(assertion, await platformToken())
    const args = ['call', `${origin}/mcp`, 'whoami', '--client-id', 'nightly-job', '--jwt-bearer-assertion-file', assertion, '--store', store]
    const first = await run(args)
    expect(first.code, first.stderr).toBe(0)
    // the same one-time assertion is still in the file: a second token request would be a replay
    const second = await run(args)
    expect(second.stderr).not.toContain('already used')
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('nightly-job')

    const tokenStore = join(dir, 'item5-cc.json')
    const once = await run(['token', `${origin}/mcp`, ...reporter, '--store', tokenStore])
    const again = await run(['token', `${origin}/mcp`, ...reporter, '--store', tokenStore])
    expect(once.code, once.stderr).toBe(0)
    expect(again.stdout).toBe(once.stdout)

    // a kept token the server refuses (revoked, or a store edited by hand) is replaced, not an error
    const kept = JSON.parse(await readFile(tokenStore, 'utf8')) as { tokens: Record<string, { access_token: string }> }
    for (const entry of Object.values(kept.tokens)) entry.access_token = 'not-a-token-the-server-issued'
    await writeFile(tokenStore, JSON.stringify(kept), { mode: 0o600 })
    const replaced = await run(['call', `${origin}/mcp`, 'whoami', ...reporter, '--store', tokenStore])
    expect(replaced.code, replaced.stderr).toBe(0)
    expect(replaced.stdout).toContain('reporter')
    const stored = JSON.parse(await readFile(tokenStore, 'utf8')) as { tokens: Record<string, { access_token: string }> }
    expect(Object.values(stored.tokens).map((entry) => entry.access_token)).not.toContain('not-a-token-the-server-issued')
  })

  it('ends quietly when the reader of its output closes the pipe early (item 8)', async () => {
    const workload = ['--client-id', 'nightly-job', '--jwt-bearer-assertion-env', 'PLATFORM_TOKEN', '--store', join(dir, 'item8.json')]
    const piped = await run(['tools', `${origin}/mcp`, ...workload], { closeStdout: true, env: { PLATFORM_TOKEN: await platformToken() } })
    expect(piped.stderr).not.toMatch(/EPIPE|\n\s+at /)
    expect(piped.code).toBe(0)
  })

  it('proxy: initialize and the next requests in one write are answered, queued until the session exists (item 9)', async () => {
    const workload = ['--client-id', 'nightly-job', '--jwt-bearer-assertion-env', 'PLATFORM_TOKEN', '--store', join(dir, 'item9.json')]
    const child = spawn(process.execPath, [CLI_PATH, 'proxy', `${origin}/mcp`, ...workload], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PLATFORM_TOKEN: await platformToken() },
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const answers = new Map<unknown, { result?: { tools?: Array<{ name: string }> }; error?: { message: string } }>()
    const done = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line) as { id?: unknown }
        answers.set(message.id, message as never)
        if (answers.has(2) && answers.has(3)) resolve()
      })
    })
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'eager-host', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    ]
    child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''))
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    try {
      await Promise.race([done, new Promise((resolve) => child.once('close', resolve))])
      expect(stderr).not.toContain('Mcp-Session-Id')
      expect(answers.get(2)?.error, stderr).toBeUndefined()
      expect(answers.get(2)?.result?.tools?.map((tool) => tool.name)).toContain('whoami')
      expect(JSON.stringify(answers.get(3))).toContain('nightly-job')
    } finally {
      clearTimeout(timer)
      child.stdin.end()
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('close', resolve)))
    }
  })
})
