import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMetrics } from '../../src/observe/create-metrics.js'
import type { Metrics } from '../../src/observe/metrics.js'
import { Observer } from '../../src/observe/observer.js'
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js'

let stack: GatewayStack
let metrics: Metrics

beforeAll(async () => {
  const observer = new Observer()
  metrics = createMetrics(observer)
  stack = await startGatewayStack({ observer })
})
afterAll(() => stack?.stop())

const gauge = async (name: string, labels: Record<string, string> = {}): Promise<number | undefined> =>
  (await metrics.registry.getSingleMetric(name)?.get())?.values.find((entry) => Object.entries(labels).every(([key, value]) => entry.labels[key] === value))?.value

async function until(name: string, value: number, labels: Record<string, string> = {}): Promise<number | undefined> {
  let seen: number | undefined
  for (let i = 0; i < 100; i++) {
    seen = await gauge(name, labels)
    if (seen === value) return seen
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return seen
}

describe('gateway metrics', () => {
  it('gauges the children running and the sessions open, in this process', async () => {
    expect(await gauge('mcp_auth_gateway_children_running')).toBe(0)
    const client = await stack.connect(await stack.token('metered'))
    try {
      await client.callTool({ name: 'whoami', arguments: {} })
      expect(await gauge('mcp_auth_gateway_children_running')).toBe(1)
      expect(await gauge('mcp_auth_mcp_sessions_open', { transport: 'streamable-http' })).toBe(1)
    } finally {
      await client.close()
    }
    expect(await until('mcp_auth_mcp_sessions_open', 0, { transport: 'streamable-http' })).toBe(0)
    expect(await until('mcp_auth_gateway_children_running', 0)).toBe(0)
  }, 30_000)
})
