import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { startLoopbackCallback } from '../../../src/auth/client/loopback-callback.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-store-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('FileTokenStore', () => {
  it('keys tokens by issuer and resource, keeps registrations per issuer, and writes 0600', async () => {
    const store = new FileTokenStore(join(dir, 'a', 'tokens.json'))
    await store.setClient('https://as.one', { client_id: 'one', source: 'dynamic' })
    await store.setTokens('https://as.one', 'https://mcp.one/mcp', { access_token: 't1' })
    await store.setTokens('https://as.one', 'https://mcp.two/mcp', { access_token: 't2' })
    expect((await store.getTokens('https://as.one', 'https://mcp.two/mcp'))?.access_token).toBe('t2')
    expect(await store.getClient('https://as.two')).toBeUndefined()
    expect((await store.list()).map((entry) => entry.resource).sort()).toEqual(['https://mcp.one/mcp', 'https://mcp.two/mcp'])
    expect((await stat(store.file)).mode & 0o777).toBe(0o600)
  })

  it('runs exclusive sections of several store instances (processes) one at a time, losing no write', async () => {
    const file = join(dir, 'b', 'tokens.json')
    const stores = Array.from({ length: 4 }, () => new FileTokenStore(file))
    let inside = 0
    let overlapped = false
    await Promise.all(
      stores.flatMap((store, s) =>
        Array.from({ length: 5 }, (_, i) =>
          store.exclusive(async () => {
            inside += 1
            if (inside > 1) overlapped = true
            await new Promise((resolve) => setTimeout(resolve, 2))
            await store.setTokens('https://as', `https://mcp/${s}-${i}`, { access_token: `${s}-${i}` })
            inside -= 1
          }),
        ),
      ),
    )
    expect(overlapped).toBe(false)
    const saved = JSON.parse(await readFile(file, 'utf8')) as { tokens: Record<string, unknown> }
    expect(Object.keys(saved.tokens)).toHaveLength(20)
  })

  it('loses no write when writes overlap inside an exclusive section and beside it', async () => {
    const store = new FileTokenStore(join(dir, 'c', 'tokens.json'))
    await Promise.all([
      store.exclusive(() => Promise.all(Array.from({ length: 10 }, (_, i) => store.setTokens('https://as', `https://mcp/${i}`, { access_token: `t${i}` })))),
      ...Array.from({ length: 10 }, (_, i) => store.setClient(`https://as/${i}`, { client_id: `c${i}`, source: 'dynamic' })),
    ])
    expect(await store.list()).toHaveLength(10)
    for (let i = 0; i < 10; i++) expect(await store.getClient(`https://as/${i}`)).toEqual({ client_id: `c${i}`, source: 'dynamic' })
  })
})

describe('startLoopbackCallback', () => {
  let busy: Server
  let busyPort: number
  beforeAll(async () => {
    busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    busyPort = (busy.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())))

  it('moves to another port when the preferred one is busy', async () => {
    const callback = await startLoopbackCallback({ port: busyPort })
    expect(callback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect(callback.redirectUri).not.toContain(`:${busyPort}/`)
    callback.close()
  })

  it('says which port is taken when the port is fixed', async () => {
    await expect(startLoopbackCallback({ port: busyPort, strictPort: true })).rejects.toThrow(new RegExp(`callback port ${busyPort} is in use`))
  })

  it('resolves with the URL the browser comes back to and shows a page', async () => {
    const callback = await startLoopbackCallback()
    const response = await fetch(`${callback.redirectUri}?code=abc&state=xyz`)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('Signed in')
    expect((await callback.result).searchParams.get('code')).toBe('abc')
  })

  it('ignores a request with another state (issue 28): answered with a page, the login goes on waiting for its own', async () => {
    const callback = await startLoopbackCallback({ state: 'the-login', check: () => {} })
    const stray = await fetch(`${callback.redirectUri}?code=stray&state=another`)
    expect(stray.status).toBe(400)
    expect(await stray.text()).toContain('Not this sign-in')
    const missing = await fetch(`${callback.redirectUri}?code=stray`)
    expect(missing.status).toBe(400)
    const own = await fetch(`${callback.redirectUri}?code=abc&state=the-login`)
    expect(own.status).toBe(200)
    expect((await callback.result).searchParams.get('code')).toBe('abc')
  })

  it('refuses a response its check throws on: the page says so and the result rejects with that error', async () => {
    const refusal = new Error('wrong issuer')
    const callback = await startLoopbackCallback({
      check: (url) => {
        if (url.searchParams.get('iss') !== 'https://as.example') throw refusal
      },
    })
    const response = await fetch(`${callback.redirectUri}?code=abc&state=xyz&iss=https%3A%2F%2Fevil.example`)
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('Sign-in refused')
    await expect(callback.result).rejects.toBe(refusal)
  })

  it('stops waiting when its signal aborts: the listener closes and the result rejects with the reason', async () => {
    const controller = new AbortController()
    const callback = await startLoopbackCallback({ signal: controller.signal })
    const reason = new Error('interrupted')
    controller.abort(reason)
    await expect(callback.result).rejects.toBe(reason)
    await expect(fetch(callback.redirectUri)).rejects.toThrow()
  })

  it('gives up after its timeout, saying the login was not completed in that time', async () => {
    const callback = await startLoopbackCallback({ timeoutMs: 1_000 })
    await expect(callback.result).rejects.toThrow(/^login not completed within 1 s: the browser did not come back/)
    callback.close()
  })
})
