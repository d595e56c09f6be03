import { UsageError } from './command.js'

/** The options of a serving command that put its state in Redis. */
export const redisOptions = {
  redis: { type: 'string' },
  'redis-prefix': { type: 'string' },
} as const

/** Their lines of a usage text, descriptions starting at `column` as the command's other options do. */
export function redisUsage(column: number): string {
  const line = (name: string, text: string[]): string => [`  ${name.padEnd(column - 2)}${text[0]}`, ...text.slice(1).map((more) => `${' '.repeat(column)}${more}`)].join('\n')
  return [
    line('--redis URL', [
      'keep every shared state in Redis (redis:// or rediss://), so several processes',
      'behind a load balancer serve as one (also MCP_AUTH_REDIS_URL, or storage.redis',
      'in the configuration file); see docs/deployment.md',
    ]),
    line('--redis-prefix P', ['prefix of every Redis key (default mcp-auth:), to share one Redis between deployments']),
  ].join('\n')
}

/** Where Redis is, when a command is told to use it. */
export interface RedisChoice {
  url: string
  prefix?: string
}

/**
 * The Redis a serving command uses: `--redis`, else MCP_AUTH_REDIS_URL, else the configuration
 * file's `storage.redis` (a URL, or `{ "url": …, "prefix": … }`); `--redis-prefix` over the
 * file's prefix. Removes `storage` from `fromFile` (it is not an authorization server option).
 */
export function redisChoice(values: Record<string, string | boolean | undefined>, fromFile: Record<string, unknown>): RedisChoice | undefined {
  const stored = fromFile['storage']
  delete fromFile['storage']
  const fileRedis = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>)['redis'] : undefined
  if (stored !== undefined && (typeof stored !== 'object' || stored === null || Object.keys(stored).some((key) => key !== 'redis')))
    throw new UsageError('configuration file: storage may only hold redis (a URL, or { "url": ..., "prefix": ... })')
  const fromFileUrl = typeof fileRedis === 'string' ? fileRedis : typeof fileRedis === 'object' && fileRedis !== null ? (fileRedis as Record<string, unknown>)['url'] : undefined
  const filePrefix = typeof fileRedis === 'object' && fileRedis !== null ? (fileRedis as Record<string, unknown>)['prefix'] : undefined
  const url = (values['redis'] as string | undefined) ?? (process.env['MCP_AUTH_REDIS_URL'] || undefined) ?? fromFileUrl
  const prefix = (values['redis-prefix'] as string | undefined) ?? filePrefix
  if (url === undefined) {
    if (values['redis-prefix'] !== undefined) throw new UsageError('--redis-prefix needs --redis (or MCP_AUTH_REDIS_URL)')
    return undefined
  }
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url) || !URL.canParse(url)) throw new UsageError(`--redis must be a redis:// or rediss:// URL, got ${String(url)}`)
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === '')) throw new UsageError('--redis-prefix must be a non-empty string')
  return prefix === undefined ? { url } : { url, prefix }
}
