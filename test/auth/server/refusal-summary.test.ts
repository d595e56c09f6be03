// Issue 27, item 12: refusals under a flood are counted and summed up, one line per window, by reason.
import { describe, expect, it } from 'vitest'
import { type LogLine, RefusalSummary } from '../../../src/auth/server/middleware/refusal-summary.js'

describe('RefusalSummary', () => {
  it('logs the first refusal at once and sums up the rest once per window, by reason; a quiet window logs nothing', async () => {
    const lines: LogLine[] = []
    const summary = new RefusalSummary('registrations', 200, (line) => lines.push(line))
    summary.count('at the group cap', () => 'registration refused: first')
    for (let i = 0; i < 500; i++) summary.count(i % 5 === 0 ? 'while full' : 'at the group cap', () => 'never used')
    expect(lines.map((line) => line.message)).toEqual(['registration refused: first (further refusals are counted and summed up every 0.2 s)'])
    // a line, not a fault: no stack frames for a logger to print
    expect(lines[0]!.stack).toBe(lines[0]!.message)
    const deadline = Date.now() + 5_000
    while (lines.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(lines.map((line) => line.message).at(-1)).toBe('500 more registrations refused in the last 0.2 s (100 while full, 400 at the group cap)')
    // the next window passes without a refusal (with room for a loaded machine's late timers)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(lines).toHaveLength(2)
    // quiet again: the next refusal is a first line of its own
    summary.count('while full', () => 'registration refused: again')
    expect(lines.at(-1)!.message).toMatch(/^registration refused: again/)
  })
})
