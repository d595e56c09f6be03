import { afterEach, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/command.js'
import { redisChoice } from '../../src/cli/redis-option.js'
import { runCli } from '../helpers/cli-process.js'

const saved = process.env['MCP_AUTH_REDIS_URL']
afterEach(() => {
  if (saved === undefined) delete process.env['MCP_AUTH_REDIS_URL']
  else process.env['MCP_AUTH_REDIS_URL'] = saved
})

describe('redisChoice', () => {
  it('takes --redis first, then MCP_AUTH_REDIS_URL, then the configuration file, and none by default', () => {
    delete process.env['MCP_AUTH_REDIS_URL']
    expect(redisChoice({}, {})).toBeUndefined()
    expect(redisChoice({}, { storage: { redis: 'redis://file:6379' } })).toEqual({ url: 'redis://file:6379' })
    expect(redisChoice({}, { storage: { redis: { url: 'redis://file:6379', prefix: 'f:' } } })).toEqual({ url: 'redis://file:6379', prefix: 'f:' })
    process.env['MCP_AUTH_REDIS_URL'] = 'redis://env:6379'
    expect(redisChoice({}, { storage: { redis: 'redis://file:6379' } })).toEqual({ url: 'redis://env:6379' })
    expect(redisChoice({ redis: 'rediss://flag:6380', 'redis-prefix': 'p:' }, {})).toEqual({ url: 'rediss://flag:6380', prefix: 'p:' })
  })

  it('takes storage out of the configuration file, so the authorization server never sees it', () => {
    const file: Record<string, unknown> = { storage: { redis: 'redis://file:6379' }, issuer: 'http://localhost:1' }
    redisChoice({}, file)
    expect(file).toEqual({ issuer: 'http://localhost:1' })
  })

  it('refuses what is not a Redis URL, a prefix without Redis, and other storage keys', () => {
    delete process.env['MCP_AUTH_REDIS_URL']
    expect(() => redisChoice({ redis: 'http://x' }, {})).toThrow(UsageError)
    expect(() => redisChoice({ 'redis-prefix': 'p:' }, {})).toThrow(/needs --redis/)
    expect(() => redisChoice({}, { storage: { sql: 'x' } })).toThrow(/storage may only hold redis/)
  })
})

describe('serving commands with --redis', () => {
  it('start exits with a clear message, and nothing listening, when Redis does not answer', async () => {
    const result = await runCli(['start', '--redis', 'redis://127.0.0.1:1', '--port', '0', '--data-dir', '/tmp/mcp-auth-unused-redis-test'])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/)
    expect(result.stdout).not.toMatch(/listening on/)
  }, 20_000)
})
