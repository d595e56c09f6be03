// Issue 27, item 9: a 2026-07-28 multi-round (MRTR) request started on one node of a Redis
// deployment and answered on another goes on: every node derives the requestState key from the
// deployment's data key instead of drawing its own.
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { freePort } from '../helpers/free-port.js'
import { accept, callRound } from '../helpers/input-rounds.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
let dataDir: string
const nodes: Array<{ job: MainJob; listener: Server; url: string }> = []

beforeAll(async () => {
  redis = await startRedisServer()
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-input-rounds-'))
  const ports = [await freePort(), await freePort()]
  // one public origin (what a load balancer serves), two nodes on one data directory and one Redis
  const origin = `http://localhost:${ports[0]}`
  for (const port of ports) {
    const job = await createMainJob({ origin, dataDir, redis: { url: redis.url } })
    const listener = createServer(job.handler)
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve))
    nodes.push({ job, listener, url: `http://127.0.0.1:${port}` })
  }
}, 30_000)

afterAll(async () => {
  for (const { job, listener } of nodes) {
    listener.closeAllConnections()
    await new Promise((resolve) => listener.close(resolve))
    await job.close()
  }
  await redis?.close()
  await rm(dataDir, { recursive: true, force: true })
})

async function accessToken(): Promise<string> {
  const client = await nodes[0]!.job.as.addClient({ client_name: 'rounds', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] })
  const response = await fetch(`${nodes[0]!.url}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=mcp',
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe('input rounds on two start --redis nodes', () => {
  it('answers on node B a round node A asked, and on A again the round B asked', async () => {
    const token = await accessToken()
    const bearer = { authorization: `Bearer ${token}` }
    const first = await callRound(nodes[0]!.url, {}, bearer)
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { step1: {} } })
    const second = await callRound(nodes[1]!.url, { inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: first.result!['requestState'] }, bearer)
    expect(second.error).toBeUndefined()
    expect(second.result).toMatchObject({ resultType: 'input_required', inputRequests: { step2: {} } })
    const third = await callRound(nodes[0]!.url, { inputResponses: { step2: accept({ color: 'green' }) }, requestState: second.result!['requestState'] }, bearer)
    expect(third.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada likes green' }] })
  })
})
