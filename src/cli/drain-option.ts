import { defaults } from '../config/defaults.js'
import { UsageError } from './command.js'

/** The option of a serving command that sets how long it drains before it closes anything. */
export const drainOptions = {
  'drain-delay': { type: 'string' },
} as const

/** Its lines of a usage text, descriptions starting at `column` as the command's other options do. */
export function drainUsage(column: number): string {
  const text = [
    `on SIGTERM, answer /healthz 503 and keep serving this long first (default ${defaults.cli.drainDelayMs / 1000};`,
    'also MCP_AUTH_DRAIN_DELAY), so a load balancer takes the node out before it closes;',
    `at least the balancer's check interval x checks to fail, plus a margin (docs/deployment.md)`,
  ]
  return [`  ${'--drain-delay S'.padEnd(column - 2)}${text[0]}`, ...text.slice(1).map((more) => `${' '.repeat(column)}${more}`)].join('\n')
}

/** The drain delay in ms: `--drain-delay SECONDS`, else MCP_AUTH_DRAIN_DELAY, else the default. */
export function drainDelayMs(values: Record<string, string | boolean | undefined>): number {
  const given = (values['drain-delay'] as string | undefined) ?? (process.env['MCP_AUTH_DRAIN_DELAY'] || undefined)
  if (given === undefined) return defaults.cli.drainDelayMs
  const seconds = Number(given)
  if (given.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
    throw new UsageError(`--drain-delay must be a number of seconds between 0 and 3600, got ${given}`)
  return Math.round(seconds * 1000)
}
