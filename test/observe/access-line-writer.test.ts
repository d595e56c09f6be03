// Issue 33: the access line written as one string must read back as pino's own line would.
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { AccessLineWriter } from '../../src/observe/access-line-writer.js'
import type { FinishedRequest, RequestRecord } from '../../src/observe/request-record.js'

function capture(): { lines: string[]; stream: { write(line: string): void } } {
  const lines: string[] = []
  return { lines, stream: { write: (line: string) => void lines.push(line) } }
}

const record: RequestRecord = {
  id: 'abc-1',
  method: 'POST',
  startedAt: 0n,
  route: '/mcp',
  clientId: 'client "quoted" \u2028',
  subject: 'sub-1',
  mcpMethod: 'tools/call',
  mcpTarget: 'echo\nnext',
}
const finished = { record, req: {} as never, status: 200, durationMs: 1.234, bytes: 99, aborted: true } as FinishedRequest

describe('AccessLineWriter', () => {
  for (const [name, settings] of [
    ['our log (level labels, ISO time, no pid)', { base: {}, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } }],
    ["pino's defaults (level numbers, epoch time, pid and hostname)", {}],
  ] as const) {
    it(`writes a line that reads back like pino's own for the same fields: ${name}`, () => {
      const ours = capture()
      const theirs = capture()
      const parent = pino(settings as pino.LoggerOptions, ours.stream)
      const log = parent.child({ node: 'n-1' })
      new AccessLineWriter(log).write('info', finished, '/mcp', '10.0.0.0::/64')
      pino(settings as pino.LoggerOptions, theirs.stream)
        .child({ node: 'n-1' })
        .info(
          {
            request_id: 'abc-1',
            method: 'POST',
            route: '/mcp',
            status: 200,
            duration_ms: 1.2,
            bytes: 99,
            client_id: 'client "quoted" \u2028',
            sub: 'sub-1',
            mcp_method: 'tools/call',
            mcp_target: 'echo\nnext',
            address_group: '10.0.0.0::/64',
            aborted: true,
          },
          'request',
        )
      expect(ours.lines).toHaveLength(1)
      expect(ours.lines[0]!.endsWith('\n')).toBe(true)
      expect(ours.lines[0]!.trimEnd()).not.toContain('\n')
      const mine = JSON.parse(ours.lines[0]!) as Record<string, unknown>
      const pinos = JSON.parse(theirs.lines[0]!) as Record<string, unknown>
      expect(typeof mine['time']).toBe(typeof pinos['time'])
      delete mine['time']
      delete pinos['time']
      expect(mine).toEqual(pinos)
    })
  }
})
