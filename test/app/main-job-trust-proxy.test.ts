// Issue 27, item 12: behind a proxy (`start --trust-proxy`), the registration caps count each
// client's address group, not the proxy's: the main job's app reads X-Forwarded-For too.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { freePort } from '../helpers/free-port.js'

let job: MainJob
let listener: Server
let dataDir: string
let origin: string

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-trust-proxy-'))
  const port = await freePort()
  origin = `http://localhost:${port}`
  job = await createMainJob({ origin, dataDir, trustProxy: true, config: { registration: { maxUnusedPerAddress: 2, maxUnused: 100 } } })
  listener = createServer(job.handler)
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve))
}, 20_000)

afterAll(async () => {
  listener?.closeAllConnections()
  await new Promise((resolve) => listener?.close(resolve))
  await job?.close()
  await rm(dataDir, { recursive: true, force: true })
})

const register = async (address: string): Promise<number> => {
  const response = await fetch(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' }),
  })
  await response.body?.cancel()
  return response.status
}

describe('the main job behind a trusted proxy', () => {
  it('caps unused registrations per client address group, not per proxy', async () => {
    expect(await Promise.all(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].map(register))).toEqual([201, 201, 201, 201])
    expect([await register('198.51.100.1'), await register('198.51.100.1'), await register('198.51.100.1')]).toEqual([201, 201, 429])
  })

  it('counts the address the proxy appended, not one the client sent ahead of it', async () => {
    const spoofed = await Promise.all(['10.9.0.1', '10.9.0.2', '10.9.0.3'].map((spoof) => register(`${spoof}, 198.51.100.2`)))
    expect(spoofed.sort()).toEqual([201, 201, 429])
  })
})
