import { fileURLToPath } from 'node:url'
import { StdioClientTransport, type StdioClientTransportOptions } from '../../../src/transports/stdio/index.js'

/** Absolute path of a fixture script in test/fixtures/stdio. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/stdio/${name}`, import.meta.url))
}

export interface Recorded {
  transport: StdioClientTransport
  messages: unknown[]
  errors: Error[]
  closes: number
  /** Resolves with the first message (already received or future) that matches. */
  next(match?: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>
}

/** A client transport running `node <fixture> ...args`, recording what it reports. Not started. */
export function nodeFixture(name: string, args: string[] = [], options: Partial<StdioClientTransportOptions> = {}): Recorded {
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixture(name), ...args], stderr: 'ignore', ...options })
  const waiters: Array<{ match: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = []
  const recorded: Recorded = {
    transport,
    messages: [],
    errors: [],
    closes: 0,
    next(match = () => true) {
      const seen = recorded.messages.find((m) => match(m as Record<string, unknown>))
      if (seen !== undefined) return Promise.resolve(seen as Record<string, unknown>)
      return new Promise((resolve) => waiters.push({ match, resolve }))
    },
  }
  transport.onmessage = (payload) => {
    recorded.messages.push(payload)
    for (const waiter of [...waiters]) {
      if (waiter.match(payload as Record<string, unknown>)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(payload as Record<string, unknown>)
      }
    }
  }
  transport.onerror = (error) => recorded.errors.push(error)
  transport.onclose = () => recorded.closes++
  return recorded
}

/** Whether a process with this pid still exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
