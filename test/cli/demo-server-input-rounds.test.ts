// Issue 27, item 9: `demo-server --redis` processes share the requestState key through Redis, so a
// 2026-07-28 input round one process asked is answered on another.
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { accept, callRound } from '../helpers/input-rounds.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let redis: RedisServer
const processes: Array<{ child: ChildProcess; url: string }> = []

beforeAll(async () => {
  redis = await startRedisServer()
  // started together on an empty Redis: they agree on one key all the same
  processes.push(...(await Promise.all([0, 1].map(() => startCli(['demo-server', '--port', '0', '--redis', redis.url, '--json'])))))
}, 30_000)

afterAll(async () => {
  await Promise.all(processes.map(({ child }) => stopChild(child)))
  await redis?.close()
})

describe('input rounds on two demo-server --redis processes', () => {
  it('answers on the second process a round the first asked', async () => {
    const [a, b] = processes.map(({ url }) => new URL(url).origin)
    const first = await callRound(a!, {})
    expect(first.result).toMatchObject({ resultType: 'input_required' })
    const second = await callRound(b!, { inputResponses: { step1: accept({ name: 'Ada' }) }, requestState: first.result!['requestState'] })
    expect(second.error).toBeUndefined()
    const third = await callRound(a!, { inputResponses: { step2: accept({ color: 'green' }) }, requestState: second.result!['requestState'] })
    expect(third.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada likes green' }] })
  })
})
