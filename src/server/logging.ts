import { LOGGING_LEVELS, type LoggingLevel } from '../schema/features.js'

/** RFC 5424 order: is `level` at least as severe as `threshold`? */
export function isAtLeast(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold)
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOGGING_LEVELS as readonly string[]).includes(value)
}
