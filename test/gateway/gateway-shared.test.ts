/**
 * Issue 31, item 2: `--shared` runs one child for everyone. Requests of many sessions are
 * multiplexed on it (ids rewritten; progress and cancellation routed by their tokens), and what
 * cannot be attributed to one caller over stdio (the child's sampling request) is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGatewayStack, statelessRequest, type GatewayStack } from '../helpers/gateway-stack.js'

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text

describe('the gateway with --shared', () => {
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ shared: true })
  })
  afterAll(() => stack.stop())

  it('serves every principal from one child, which is told of no principal', async () => {
    const a = await stack.connect(await stack.token('a'))
    const b = await stack.connect(await stack.token('b'))
    const [wa, wb] = [JSON.parse(text(await a.callTool({ name: 'whoami', arguments: {} }))), JSON.parse(text(await b.callTool({ name: 'whoami', arguments: {} })))]
    expect(wa.pid).toBe(wb.pid)
    expect(wa.subject).toBeUndefined()
    expect(stack.job.host.pool.size).toBe(1)
    await Promise.all([a.close(), b.close()])
  })

  it('routes every answer and every progress notification to its own session under concurrency', async () => {
    const sessions = await Promise.all(['a', 'b', 'c'].map(async (name) => stack.connect(await stack.token(name))))
    const calls = sessions.flatMap((client, s) =>
      Array.from({ length: 8 }, async (_, i) => {
        const seen: number[] = []
        const tag = `s${s}-c${i}`
        const result = await client.callTool(
          { name: 'slow', arguments: { ms: 60 + ((i * 37) % 90), steps: 3, tag } },
          { onprogress: (p: { progress: number }) => seen.push(p.progress) },
        )
        return { tag, got: text(result), seen }
      }),
    )
    // a stateless request in the middle of it
    const { body, headers } = statelessRequest(1, 'tools/call', { name: 'slow', arguments: { ms: 50, tag: 'stateless' } })
    const stateless = stack.post(await stack.token('d'), body, headers)
    for (const { tag, got, seen } of await Promise.all(calls)) {
      expect(got).toBe(`slow done: ${tag}`)
      expect(seen).toEqual([1, 2, 3])
    }
    expect(text((await stateless).message.result as { content: unknown[] })).toBe('slow done: stateless')
    await Promise.all(sessions.map((client) => client.close()))
  })

  it('cancels only the request of the session that cancelled, though both used the same id', async () => {
    const a = await stack.connect(await stack.token('a'))
    const b = await stack.connect(await stack.token('b'))
    // both sessions' first request after initialize carries the same JSON-RPC id
    const controller = new AbortController()
    const cancelled = a.callTool({ name: 'slow', arguments: { ms: 1500, steps: 15, tag: 'a' } }, { signal: controller.signal })
    const kept = b.callTool({ name: 'slow', arguments: { ms: 600, steps: 6, tag: 'b' } })
    setTimeout(() => controller.abort(), 150)
    await expect(cancelled).rejects.toThrow()
    expect(text(await kept)).toBe('slow done: b')
    const lines = stack.log.filter((line) => /request \d+ cancelled/.test(line))
    expect(lines).toHaveLength(1)
    await Promise.all([a.close(), b.close()])
  })

  it("refuses the child's sampling request, which cannot be attributed to one caller, and logs why", async () => {
    const client = await stack.connect(await stack.token('a'), (c) =>
      c.setSamplingHandler(async () => ({ role: 'assistant', content: { type: 'text', text: 'never' }, model: 'm' })),
    )
    const result = await client.callTool({ name: 'sample', arguments: {} })
    expect(text(result)).toMatch(/^sampling refused: sampling\/createMessage is not available: this server runs behind the mcp-auth gateway for several callers/)
    expect(stack.log.some((line) => /refused sampling\/createMessage from a child that serves several callers/.test(line))).toBe(true)
    await client.close()
  })
})
