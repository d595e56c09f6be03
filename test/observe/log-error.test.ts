// Issue 33 (logs): a client's mistake is one line without a stack, our bug a stack, storage away a warning.
import { describe, expect, it } from 'vitest'
import { InvalidRequestError, TemporarilyUnavailableError } from '../../src/auth/errors.js'
import { LogLine } from '../../src/auth/server/middleware/refusal-summary.js'
import { logError } from '../../src/observe/log-error.js'
import { StorageUnavailableError } from '../../src/sessions/storage-unavailable.js'
import { memoryLog } from '../helpers/memory-log.js'

describe('logError', () => {
  it('writes a client mistake (exposed, or any 4xx) as one line at info, with its code and reason and no stack', () => {
    const { log, lines } = memoryLog()
    logError(log, new InvalidRequestError('the request names no resource'))
    logError(log, Object.assign(new Error('Not Found'), { status: 404 }))
    expect(lines).toMatchObject([
      { level: 30, msg: 'request refused', status: 400, error: 'invalid_request', reason: 'the request names no resource' },
      { level: 30, msg: 'request refused', status: 404, reason: 'Not Found' },
    ])
    expect(JSON.stringify(lines)).not.toContain('stack')
  })

  it('writes storage out of reach as one warning naming the cause, without a stack', () => {
    const { log, lines } = memoryLog()
    logError(log, new TemporarilyUnavailableError('the authorization server cannot reach its storage', { cause: new StorageUnavailableError('redis: connection refused') }))
    logError(log, new StorageUnavailableError('redis: command timed out'))
    expect(lines).toMatchObject([
      { level: 40, msg: 'storage unavailable', status: 503, cause: 'redis: connection refused' },
      { level: 40, msg: 'storage unavailable', reason: 'redis: command timed out' },
    ])
    expect(JSON.stringify(lines)).not.toContain('stack')
  })

  it('writes a line meant for the log at its own level', () => {
    const { log, lines } = memoryLog()
    logError(log, new LogLine('registration refused: address group 10.0.0.1 holds 3 unused registrations'))
    expect(lines).toMatchObject([{ level: 40, msg: 'registration refused: address group 10.0.0.1 holds 3 unused registrations' }])
  })

  it('writes our own bug at error, with its stack', () => {
    const { log, lines } = memoryLog()
    logError(log, new TypeError('cannot read properties of undefined'))
    logError(log, 'a thrown string')
    expect(lines[0]).toMatchObject({ level: 50, msg: 'request failed', err: { type: 'TypeError', message: 'cannot read properties of undefined' } })
    expect((lines[0]!['err'] as { stack: string }).stack).toMatch(/\n\s+at /)
    expect(lines[1]).toMatchObject({ level: 50, err: { message: 'a thrown string' } })
  })

  it('writes nothing for a client mistake when the level is above info', () => {
    const { log, lines } = memoryLog('warn')
    logError(log, new InvalidRequestError('quiet'))
    expect(lines).toEqual([])
  })
})
