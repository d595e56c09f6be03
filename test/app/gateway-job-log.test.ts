// Issue 33 (logs): the gateway's children's stderr reaches the observer's log, a line each, never stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Observer } from '../../src/observe/observer.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { memoryLog } from '../helpers/memory-log.js'

describe('createGatewayJob with an observer and no log of its own', () => {
  const { log, lines } = memoryLog()
  let stack: GatewayStack
  beforeAll(async () => {
    stack = await startGatewayStack({ log: undefined, observer: new Observer({ log }), children: { restartDelayMs: 150, maxRestartDelayMs: 150 } } as never)
  })
  afterAll(() => stack.stop())

  it("writes a child's stderr line to the observer's log at info", async () => {
    const client = await stack.connect(await stack.token('dies'))
    await expect(client.callTool({ name: 'die', arguments: {} })).rejects.toThrow(/exited with code 7/)
    const deadline = Date.now() + 5_000
    while (!lines.some((line) => String(line['msg']).includes('dying mid-call')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(lines.find((line) => String(line['msg']).includes('stdio-test-server: dying mid-call'))).toMatchObject({ level: 30 })
    // the helper's own list stays empty: the lines went to the observer's log
    expect(stack.log).toEqual([])
    await client.close()
  })
})
