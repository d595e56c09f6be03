// Issue 27, item 12: a flood of unused registrations from many address groups must not shut
// registration for everyone. The per-group cap bites first (a burst cannot overshoot it), the
// global bound holds when every registration comes from a new group, a group holding none still
// gets in while one holding the most is refused, and each refusal is counted, not a stack trace.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationServer } from '../../../src/auth/server/create-authorization-server.js'
import { startCli, stopChild } from '../../helpers/cli-process.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

const PER_GROUP = 3
const TOTAL = 12

let s: RunningAuthServer

beforeAll(async () => {
  s = await startAuthServer({ trustProxy: true, registration: { maxUnusedPerAddress: PER_GROUP, maxUnused: TOTAL } })
})
afterAll(() => s?.stop(true))

interface Answer {
  status: number
  retryAfter: string | null
  body: Record<string, unknown>
}

async function register(origin: string, address: string): Promise<Answer> {
  const response = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' }),
  })
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> }
}

/** A fresh IPv6 /64 per `n`: one address group each. */
const group = (n: number): string => `2001:db8:${n.toString(16)}:1::${(n + 7).toString(16)}`

const stillUnused = async (server: RunningAuthServer): Promise<number> => (await server.as.storage.records.list('unused-dynamic-clients')).length
const exists = async (server: RunningAuthServer, clientId: unknown): Promise<boolean> => (await server.as.storage.adapter('Client').find(String(clientId))) !== undefined

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within 5 s')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('the per-group cap', () => {
  it('admits exactly the cap from one group sending a burst at once, and other groups still register', async () => {
    const burst = await Promise.all(Array.from({ length: 10 }, () => register(s.origin, '198.51.100.7')))
    expect(burst.filter((answer) => answer.status === 201)).toHaveLength(PER_GROUP)
    const refusals = burst.filter((answer) => answer.status !== 201)
    expect(refusals).toHaveLength(10 - PER_GROUP)
    for (const refusal of refusals) {
      expect(refusal.status).toBe(429)
      expect(refusal.retryAfter).toMatch(/^\d+$/)
      expect(refusal.body).toMatchObject({ error: 'slow_down', error_description: expect.stringContaining('use or delete them first') })
    }
    // an IPv6 address of the same /64 is the same group
    expect((await register(s.origin, '2001:db8:ffff:1::1')).status).toBe(201)
    expect((await register(s.origin, '2001:db8:ffff:1::2')).status).toBe(201)
    expect((await register(s.origin, '2001:db8:ffff:1::3')).status).toBe(201)
    expect((await register(s.origin, '2001:db8:ffff:1:abcd::4')).status).toBe(429)
    expect((await register(s.origin, '198.51.100.8')).status).toBe(201)
  })
})

describe('the global bound', () => {
  it('holds when every registration comes from a new group, lets a group holding none in and refuses the one holding the most', async () => {
    const server = await startAuthServer({ trustProxy: true, registration: { maxUnusedPerAddress: PER_GROUP, maxUnused: TOTAL } })
    try {
      const hoarder = '203.0.113.50'
      const hoarded: unknown[] = []
      for (let i = 0; i < PER_GROUP; i++) hoarded.push((await register(server.origin, hoarder)).body['client_id'])
      // a flood from ever new groups, each holding one: the store fills up to its bound and no further
      for (let n = 1; n <= 3 * TOTAL; n++) expect((await register(server.origin, group(n))).status).toBe(201)
      await until(async () => (await stillUnused(server)) === TOTAL)
      // the hoarder's registrations were displaced first (it held the most), then the oldest of the flood
      for (const clientId of hoarded) await until(async () => !(await exists(server, clientId)))
      expect(await exists(server, (await register(server.origin, group(1000))).body['client_id'])).toBe(true)
      // a group of the flood holds as many as any: refused while full, as is another try of the newest
      const again = await register(server.origin, group(3 * TOTAL))
      expect(again).toMatchObject({ status: 429, body: { error: 'slow_down' } })
      expect(String(again.body['error_description'])).toContain('as many unused registrations as it keeps')
      expect(again.retryAfter).toMatch(/^\d+$/)
      // a group holding none still gets in
      expect((await register(server.origin, group(2000))).status).toBe(201)
      await until(async () => (await stillUnused(server)) === TOTAL)
    } finally {
      await server.stop(true)
    }
  })

  it('refuses caps that contradict each other at start', async () => {
    // refused before anything is opened
    await expect(createAuthorizationServer({ issuer: 'http://127.0.0.1:9', registration: { maxUnusedPerAddress: 10, maxUnused: 5 } })).rejects.toThrow(/maxUnused must be at least/)
  })
})

describe('mcp-auth auth-server under a registration flood', () => {
  let child: ChildProcess | undefined
  let dir: string
  afterAll(async () => {
    if (child !== undefined) await stopChild(child, 'SIGKILL')
    await rm(dir, { recursive: true, force: true })
  })

  it('logs refusals as counted lines, never a stack trace', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-auth-flood-'))
    const config = join(dir, 'config.json')
    await writeFile(config, JSON.stringify({ registration: { maxUnusedPerAddress: PER_GROUP, maxUnused: TOTAL }, rateLimits: { registrationPerAddress: 10_000 } }))
    const started = await startCli(['auth-server', '--port', '0', '--data-dir', join(dir, 'data'), '--config', config, '--trust-proxy'])
    child = started.child
    const origin = new URL(started.url).origin
    const answers: Answer[] = []
    // 20 groups, 10 each at once: most refused by the group cap, and the store full past the 12th
    for (let n = 0; n < 20; n++) answers.push(...(await Promise.all(Array.from({ length: 10 }, () => register(origin, group(n + 1))))))
    for (let n = 0; n < 40; n++) answers.push(await register(origin, group(100 + n)))
    const refused = answers.filter((answer) => answer.status !== 201)
    // each group past its cap; once full, a group past the most any other holds; every group holding none got in
    expect(refused.length).toBeGreaterThanOrEqual(20 * (10 - PER_GROUP))
    expect(new Set(refused.map((answer) => answer.status))).toEqual(new Set([429]))
    expect(refused.some((answer) => String(answer.body['error_description']).includes('as many unused registrations as it keeps'))).toBe(true)
    expect(answers.slice(-40).every((answer) => answer.status === 201)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const lines = started
      .output()
      .split('\n')
      .filter((line) => /refused/.test(line))
    expect(started.output()).not.toMatch(/^\s+at /m)
    // the first refusal at once, the rest summed up later: one line, not one per refusal
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/registration refused: address group .* holds 3 unused registrations, its cap \(further refusals are counted/)
  })
})
