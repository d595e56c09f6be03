/**
 * Issue 28, item 12: a second `mcp-auth start` on the same data directory applies
 * MCP_AUTH_DEMO_PASSWORD to the existing demo account (and says so, without printing it) instead
 * of ignoring it: the new password signs in on the login page, the old one no longer does. Nodes
 * sharing a Redis store do not reset the shared account from one node's environment: the banner
 * says so, and the password stays.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { authorizeWithForm } from '../helpers/form-login.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

const REDIRECT = 'http://127.0.0.1/callback'
const children: ChildProcess[] = []
const dirs: string[] = []
let redis: RedisServer | undefined
afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)))
  await redis?.close()
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function start(dataDir: string, env: Record<string, string> = {}, args: string[] = []) {
  const started = await startCli(['start', '--port', '0', '--data-dir', dataDir, ...args], { env: { MCP_AUTH_DEMO_PASSWORD: '', ...env } })
  children.push(started.child)
  // the banner follows the "listening on" line
  await expect.poll(() => started.output(), { timeout: 5000 }).toMatch(/Demo account\s+\S.*\n/)
  return started
}

/** Whether `password` signs the demo account in on the server's login page. */
async function signsIn(issuer: string, password: string): Promise<boolean> {
  try {
    const { callback } = await authorizeWithForm(issuer, { username: 'demo', password }, REDIRECT)
    return callback.searchParams.has('code')
  } catch {
    return false
  }
}

describe('MCP_AUTH_DEMO_PASSWORD on a second start', () => {
  it("sets the existing demo account's password, and says so without printing it", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-demo-password-'))
    dirs.push(dir)
    const first = await start(dir)
    const generated = /Demo account\s+demo \/ password: (\S+)/.exec(first.output())?.[1]
    expect(generated).toBeDefined()
    await stopChild(first.child)

    const chosen = 'chosen on the second start'
    const second = await start(dir, { MCP_AUTH_DEMO_PASSWORD: chosen })
    expect(second.output()).toMatch(/Demo account\s+demo \(password set from MCP_AUTH_DEMO_PASSWORD\)/)
    expect(second.output()).not.toContain(chosen)
    expect(await signsIn(second.url, chosen)).toBe(true)
    expect(await signsIn(second.url, generated!)).toBe(false)
  })

  it('is not applied to the account nodes share in Redis, and the banner says why', async () => {
    redis = await startRedisServer()
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-demo-password-'))
    dirs.push(dir)
    const first = await start(dir, { MCP_AUTH_DEMO_PASSWORD: 'the first node chose this' }, ['--redis', redis.url, '--demo'])
    expect(first.output()).toContain('password: the first node chose this')
    await stopChild(first.child)

    const second = await start(dir, { MCP_AUTH_DEMO_PASSWORD: 'another node tries this' }, ['--redis', redis.url])
    expect(second.output()).toMatch(/MCP_AUTH_DEMO_PASSWORD is not applied to it \(the nodes share the account/)
    expect(second.output()).not.toContain('another node tries this')
    expect(await signsIn(second.url, 'the first node chose this')).toBe(true)
  })
})
