// Issue 27, item 10: a deleted secrets.json is not silently regenerated over a store that holds
// data sealed with it (confidential clients then got 500): `mcp-auth start` refuses, naming the
// file, what it protects and what to do, on lowdb and on Redis.
import { access, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { CLI_PATH } from '../helpers/paths.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
const dirs: string[] = []

beforeAll(async () => {
  redis = await startRedisServer()
}, 20_000)
afterAll(async () => {
  await redis?.close()
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-lost-secrets-'))
  dirs.push(dir)
  return dir
}

/** Starts a node, registers a confidential client there (its secret sealed with the data key), stops it. */
async function startWithConfidentialClient(args: string[]): Promise<void> {
  const { child, url } = await startCli(['start', '--port', '0', ...args], { env: { MCP_AUTH_DEMO_PASSWORD: 'lost secrets demo' } })
  try {
    const registered = await fetch(`${url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'client_secret_basic' }),
    })
    expect(registered.status).toBe(201)
    expect(((await registered.json()) as { client_secret?: string }).client_secret).toEqual(expect.any(String))
  } finally {
    await stopChild(child)
  }
}

/** Runs `mcp-auth start`, ending it (SIGKILL) if it is still running after `ms`: a start that is not refused serves. */
function runStart(args: string[], ms = 10_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, 'start', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), ms)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

async function expectRefused(args: string[], secretsFile: string, startOver: RegExp): Promise<void> {
  const { code, stderr } = await runStart(args)
  expect(code).not.toBe(0)
  expect(stderr).toContain(`${secretsFile} is missing`)
  expect(stderr).toMatch(/client secrets/)
  expect(stderr).toMatch(/upstream tokens/)
  expect(stderr).toMatch(/cookie and CSRF keys/)
  expect(stderr).toMatch(startOver)
  expect(stderr).not.toMatch(/^\s+at /m)
  // the file this start created is gone again: the next start refuses too instead of going on
  await expect(access(secretsFile)).rejects.toThrow()
}

describe('start after secrets.json was deleted', () => {
  it('refuses on lowdb when the store holds a sealed client secret, and starts once the file is back', async () => {
    const dir = await tempDir()
    await startWithConfidentialClient(['--data-dir', dir])
    const secretsFile = join(dir, 'secrets.json')
    const { readFile, writeFile } = await import('node:fs/promises')
    const saved = await readFile(secretsFile)
    await rm(secretsFile)
    await expectRefused(['--data-dir', dir], secretsFile, new RegExp(`Restore .* from a backup, or copy it from another node.*remove the store ${join(dir, 'mcp-auth.json')}`))
    await expectRefused(['--data-dir', dir], secretsFile, /remove the store/)
    await writeFile(secretsFile, saved, { mode: 0o600 })
    const again = await startCli(['start', '--port', '0', '--data-dir', dir])
    await stopChild(again.child)
  }, 30_000)

  it('refuses on Redis, saying to copy the file from a running node', async () => {
    const dir = await tempDir()
    await startWithConfidentialClient(['--data-dir', dir, '--redis', redis.url])
    const secretsFile = join(dir, 'secrets.json')
    await rm(secretsFile)
    await expectRefused(['--data-dir', dir, '--redis', redis.url], secretsFile, /copy them from a running node's data directory/)
  }, 30_000)

  it('starts a fresh store with fresh secrets as before', async () => {
    const dir = await tempDir()
    const { child } = await startCli(['start', '--port', '0', '--data-dir', dir])
    await stopChild(child)
    await access(join(dir, 'secrets.json'))
  }, 20_000)
})
