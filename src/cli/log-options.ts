import { defaults } from '../config/defaults.js'
import { accessLog } from '../observe/access-log.js'
import { createLog, LOG_LEVELS, type LogLevel } from '../observe/log.js'
import { Observer } from '../observe/observer.js'
import { UsageError } from './command.js'
import { requestAddressGroup } from '../auth/resource/request-address-group.js'

/** The options of a serving command that say how it logs. */
export const logOptions = {
  'log-level': { type: 'string' },
  'log-file': { type: 'string' },
  'log-format': { type: 'string' },
  'no-access-log': { type: 'boolean' },
} as const

const FORMATS = ['json', 'pretty'] as const

/** Their lines of a usage text, descriptions starting at `column` as the command's other options do. */
export function logUsage(column: number): string {
  const line = (name: string, text: string[]): string => [`  ${name.padEnd(column - 2)}${text[0]}`, ...text.slice(1).map((more) => `${' '.repeat(column)}${more}`)].join('\n')
  return [
    line('--log-level L', [
      `${LOG_LEVELS.join(', ')} (default ${defaults.observe.logLevel}; also ${defaults.observe.logLevelVariable});`,
      'info writes one access line per request, warn only what needs a look',
    ]),
    line('--log-file FILE', ['write the log to FILE (appended, created 0600) instead of stderr']),
    line('--log-format F', ['json (one object per line) or pretty (default: pretty on a terminal, else json)']),
    line('--no-access-log', ['no access line per request (the rest of the log at its level)']),
  ].join('\n')
}

/**
 * The observer a serving command reports through: its log (stderr or `--log-file`, never stdout:
 * stdout carries the `listening on` line and the banner) at `--log-level`, and the access line per
 * request unless `--no-access-log`.
 */
export function serverObserver(values: Record<string, string | boolean | undefined>, options: { trustProxy: boolean }): Observer {
  const level = values['log-level'] as string | undefined
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${level}`)
  const format = values['log-format'] as string | undefined
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--log-format must be json or pretty, got ${format}`)
  const file = values['log-file'] as string | undefined
  if (file !== undefined && file.trim() === '') throw new UsageError('--log-file needs a file name')
  const log = createLog({
    ...(level !== undefined ? { level: level as LogLevel } : {}),
    ...(file !== undefined ? { destination: file } : {}),
    format: (format as 'json' | 'pretty' | undefined) ?? 'auto',
  })
  const observer = new Observer({ log, trustProxy: options.trustProxy })
  if (values['no-access-log'] !== true) {
    // a balancer asks for the health every few seconds: those lines at debug
    observer.addRequestObserver(accessLog({ log, addressOf: (req) => knownGroup(requestAddressGroup(req, options.trustProxy)), quietRoutes: [defaults.cli.healthPath] }))
  }
  return observer
}

/** The access line leaves the address group out when the socket had no peer address left to read. */
function knownGroup(group: string): string | undefined {
  return group === 'unknown' ? undefined : group
}
