import { drainUsage } from './drain-option.js'
import { redisUsage } from './redis-option.js'

/**
 * The end of a server verb's usage (auth-server, demo-server): --redis, --drain-delay and --help
 * with their text at `column`, then the health check and what makes it answer 503 besides
 * draining (`down`, e.g. "Redis is unreachable").
 */
export function serverUsageTail(column: number, down: string): string {
  return `${redisUsage(column)}
${drainUsage(column)}
  ${'-h, --help'.padEnd(column - 2)}show this help
Health: GET /healthz (200, or 503 when ${down} or the process is draining).`
}
