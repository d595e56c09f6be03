import { chmodSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pino, type DestinationStream, type Logger } from 'pino'
import { defaults } from '../config/defaults.js'
import { LogSink } from './log-sink.js'

/**
 * The server's log: a pino logger (https://getpino.io). Structured fields, one JSON object per line;
 * `log.info({ client_id }, 'token issued')`. Whatever is passed where a `Log` is asked for may be
 * any pino logger (the host application's, a child of it).
 */
export type Log = Logger

/** The levels, quietest last; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** How {@link createLog} writes. */
export interface LogOptions {
  /** Lowest level written (default: `MCP_AUTH_LOG_LEVEL`, else `defaults.observe.logLevel`). */
  level?: LogLevel
  /** `stderr` (default) or a file path (appended, 0600). Never stdout: it carries the `listening on` line and stdio MCP. */
  destination?: 'stderr' | string
  /** `json` lines, `pretty` readable lines, or `auto` (default): pretty when the destination is a terminal. */
  format?: 'json' | 'pretty' | 'auto'
  /** Fields on every line (e.g. `{ node }`). */
  base?: Record<string, unknown>
}

/**
 * The log level from the environment (`MCP_AUTH_LOG_LEVEL`), when it names one; anything else
 * is ignored with the default kept (a typo must not silence a server).
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel | undefined {
  const value = env[defaults.observe.logLevelVariable]?.trim().toLowerCase()
  return (LOG_LEVELS as readonly string[]).includes(value ?? '') ? (value as LogLevel) : undefined
}

/**
 * A pino logger as the server writes it: JSON lines (or readable ones on a terminal) to stderr or a
 * file, at the level asked, the environment's or the default. Secrets are never passed to it (the
 * callers log fields they chose); `redact` is a second net for the field names that would carry one.
 *
 * @example
 * const log = createLog({ level: 'info' })
 * log.info({ route: '/token', status: 200 }, 'request')
 */
export function createLog(options: LogOptions = {}): Log {
  const level = options.level ?? logLevelFromEnv() ?? defaults.observe.logLevel
  const destination = options.destination ?? 'stderr'
  const toFile = destination !== 'stderr'
  const pretty = options.format === 'pretty' || (options.format !== 'json' && !toFile && process.stderr.isTTY === true)
  // a file that exists keeps its old mode otherwise: the log names clients and subjects, so it is the owner's alone
  if (toFile && existsSync(destination)) chmodSync(destination, 0o600)
  const settings = {
    level,
    base: { ...(options.base ?? {}) },
    timestamp: isoTimeField,
    redact: { paths: [...defaults.observe.redactPaths], censor: '[redacted]' },
    formatters: { level: (label: string) => ({ level: label }) },
  }
  // readable lines for a person at a terminal are written at once
  if (pretty)
    return pino(settings, prettyStream(toFile ? pino.destination({ dest: destination, sync: true, mkdir: true, mode: 0o600 } as never) : pino.destination({ fd: 2, sync: true })))
  // JSON lines are written in batches (one system call per few KiB, not one per line: with an
  // access line per request, one per request), flushed after logFlushMs at the latest and at exit
  const sink = new LogSink({ destination: toFile ? destination : 2, batchBytes: defaults.observe.logBufferBytes, flushMs: defaults.observe.logFlushMs })
  return pino(settings, sink)
}

let lastMs = -1
let lastTimeField = ''

/**
 * pino's `time` field as ISO 8601 (`,"time":"2026-11-26T23:00:00.000Z"`), made once per
 * millisecond: `toISOString` costs ~1 µs, and a busy server writes many lines in one millisecond.
 */
export function isoTimeField(): string {
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    lastTimeField = `,"time":"${new Date(now).toISOString()}"`
  }
  return lastTimeField
}

/** A log that writes nothing (the library's callers that pass none and tests that read none). */
export function silentLog(): Log {
  return pino({ level: 'silent' })
}

/** pino-pretty as a synchronous stream in this thread (no worker): readable lines for a person at a terminal. */
function prettyStream(destination: DestinationStream): DestinationStream {
  // loaded only for a terminal: JSON lines never load it
  const pretty = createPretty()
  return pretty({ destination, sync: true, colorize: process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
}

function createPretty(): (options: Record<string, unknown>) => DestinationStream {
  return createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => DestinationStream
}
