// Issue 27 item 13: the drain delay a serving command waits with /healthz at 503 before it closes.
import { afterEach, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/command.js'
import { drainDelayMs } from '../../src/cli/drain-option.js'
import { defaults } from '../../src/config/defaults.js'

const saved = process.env['MCP_AUTH_DRAIN_DELAY']
afterEach(() => {
  if (saved === undefined) delete process.env['MCP_AUTH_DRAIN_DELAY']
  else process.env['MCP_AUTH_DRAIN_DELAY'] = saved
})

describe('drainDelayMs', () => {
  it('takes --drain-delay in seconds (fractions too), over MCP_AUTH_DRAIN_DELAY, over the default', () => {
    delete process.env['MCP_AUTH_DRAIN_DELAY']
    expect(drainDelayMs({})).toBe(defaults.cli.drainDelayMs)
    process.env['MCP_AUTH_DRAIN_DELAY'] = '12'
    expect(drainDelayMs({})).toBe(12_000)
    expect(drainDelayMs({ 'drain-delay': '1.5' })).toBe(1_500)
    expect(drainDelayMs({ 'drain-delay': '0' })).toBe(0)
  })

  it('refuses a value that is not a number of seconds between 0 and 3600, naming the option', () => {
    for (const bad of ['', 'soon', '-1', '3601', 'Infinity']) {
      expect(() => drainDelayMs({ 'drain-delay': bad })).toThrow(UsageError)
      expect(() => drainDelayMs({ 'drain-delay': bad })).toThrow(/--drain-delay/)
    }
  })
})
