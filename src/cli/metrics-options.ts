import { defaults } from '../config/defaults.js'
import { createMetrics } from '../observe/create-metrics.js'
import type { Observer } from '../observe/observer.js'
import { UsageError } from './command.js'
import { listenMetrics, type MetricsListener } from './metrics-listener.js'

/** The options of a serving command (start, auth-server, gateway) that turn metrics on and say where they are served. */
export const metricsOptions = {
  metrics: { type: 'boolean' },
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
} as const

/** Their lines of a usage text, descriptions starting at `column` as the command's other options do. */
export function metricsUsage(column: number): string {
  const m = defaults.observe.metrics
  // an option too long for the column gets its description on the next line, as the commands' own do
  const line = (option: string, text: string): string => (option.length + 3 > column ? `  ${option}\n${' '.repeat(column)}${text}` : `  ${option.padEnd(column - 2)}${text}`)
  return [
    line('--metrics', `Prometheus metrics at <issuer>${m.path}, for an administrator's token only`),
    line('--metrics-port PORT', `also serve them on a listener of their own (GET ${m.path}, no token; implies --metrics)`),
    line('--metrics-host HOST', `its interface (default ${m.host}: never public by accident)`),
  ].join('\n')
}

/**
 * Turns metrics on for `observer` when `--metrics` or `--metrics-port` asks (call it before the job
 * is built, so the job registers its gauges); `listen` then opens the separate listener when
 * `--metrics-port` was given, and says where on stderr.
 */
export function metricsChoice(values: Record<string, unknown>, observer: Observer, command: string): { listen(): Promise<MetricsListener | undefined> } {
  const given = values['metrics-port']
  const host = (values['metrics-host'] as string | undefined) ?? defaults.observe.metrics.host
  if (values['metrics-host'] !== undefined && given === undefined) throw new UsageError('--metrics-host needs --metrics-port: it is the interface of that listener')
  let port: number | undefined
  if (given !== undefined) {
    port = Number(given)
    if (typeof given !== 'string' || !/^\d+$/.test(given) || port > 65535) throw new UsageError(`--metrics-port must be an integer from 0 to 65535, got ${String(given)}`)
  }
  if (values['metrics'] !== true && port === undefined) return { listen: async () => undefined }
  const metrics = createMetrics(observer)
  return {
    async listen() {
      if (port === undefined) return undefined
      const listener = await listenMetrics(metrics, { port, host })
      process.stderr.write(`mcp-auth ${command}: metrics at ${listener.url}\n`)
      return listener
    },
  }
}
