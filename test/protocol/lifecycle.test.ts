import { describe, expect, it } from 'vitest'
import { ErrorCode, JsonRpcError, type JsonRpcRequest } from '../../src/jsonrpc/index.js'
import { Endpoint } from '../../src/protocol/endpoint.js'
import { LocalError } from '../../src/protocol/errors.js'
import { ServerLifecycle, acceptServerProtocolVersion, assertPeerDeclared, negotiateProtocolVersion } from '../../src/protocol/lifecycle.js'
import { HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_PROTOCOL_VERSION } from '../../src/schema/versions.js'
import { connectToRecorder, settle } from '../helpers/endpoint-pair.js'

const request = (method: string, id = 1): JsonRpcRequest => ({ jsonrpc: '2.0', id, method })

function thrownBy(fn: () => void): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe('negotiateProtocolVersion', () => {
  it.each(HANDSHAKE_PROTOCOL_VERSIONS)('answers the requested version %s when it is supported', (version) => {
    expect(negotiateProtocolVersion(version)).toBe(version)
  })

  it('never answers 2026-07-28 at initialize: that revision has no handshake', () => {
    expect(negotiateProtocolVersion('2026-07-28')).toBe('2025-11-25')
  })

  it.each([
    ['an unknown version', '2023-01-01'],
    ['a future version', '2099-12-31'],
    ['a number', 20251125],
    ['undefined', undefined],
  ])('answers the latest handshake version (2025-11-25) for %s', (_label, requested) => {
    expect(negotiateProtocolVersion(requested)).toBe('2025-11-25')
    expect(LATEST_HANDSHAKE_PROTOCOL_VERSION).toBe('2025-11-25')
  })

  it('answers the first version of a custom supported list when the request is not in it', () => {
    expect(negotiateProtocolVersion('2025-11-25', ['2025-06-18', '2025-03-26'])).toBe('2025-06-18')
    expect(negotiateProtocolVersion('2025-03-26', ['2025-06-18', '2025-03-26'])).toBe('2025-03-26')
  })
})

describe('acceptServerProtocolVersion', () => {
  it('accepts every handshake version', () => {
    for (const version of HANDSHAKE_PROTOCOL_VERSIONS) expect(acceptServerProtocolVersion(version)).toBe(version)
  })

  it.each([
    ['an unknown version', '2023-01-01'],
    ['a number', 2025],
    ['null', null],
    ['undefined', undefined],
  ])('throws LocalError unsupported_protocol_version for %s', (_label, answered) => {
    const error = thrownBy(() => acceptServerProtocolVersion(answered))
    expect(error).toBeInstanceOf(LocalError)
    expect((error as LocalError).code).toBe('unsupported_protocol_version')
  })

  it('refuses a known version the caller chose not to support', () => {
    const error = thrownBy(() => acceptServerProtocolVersion('2024-11-05', ['2025-11-25', '2025-06-18']))
    expect((error as LocalError).code).toBe('unsupported_protocol_version')
  })
})

describe('assertPeerDeclared', () => {
  it('passes when declared and throws capability_not_supported when not', () => {
    expect(() => assertPeerDeclared('sampling/createMessage', true, 'client')).not.toThrow()
    const error = thrownBy(() => assertPeerDeclared('sampling/createMessage', false, 'client'))
    expect(error).toMatchObject({ name: 'LocalError', code: 'capability_not_supported' })
  })
})

describe('ServerLifecycle (strict)', () => {
  it('refuses non-ping requests before initialize with -32600', () => {
    const lifecycle = new ServerLifecycle({ strict: true })
    const error = thrownBy(() => lifecycle.beforeRequest(request('tools/list')))
    expect(error).toBeInstanceOf(JsonRpcError)
    expect((error as JsonRpcError).code).toBe(ErrorCode.InvalidRequest)
    expect((error as JsonRpcError).message).toMatch(/tools\/list before initialize/)
    expect(lifecycle.initialized).toBe(false)
  })

  it('allows ping and initialize before initialize', () => {
    const lifecycle = new ServerLifecycle({ strict: true })
    expect(() => lifecycle.beforeRequest(request('ping'))).not.toThrow()
    expect(() => lifecycle.beforeRequest(request('initialize'))).not.toThrow()
  })

  it('allows other requests once initialize has been handled', () => {
    const lifecycle = new ServerLifecycle({ strict: true })
    lifecycle.markInitializing()
    expect(lifecycle.initialized).toBe(true)
    expect(() => lifecycle.beforeRequest(request('tools/list'))).not.toThrow()
    lifecycle.markReady()
    expect(() => lifecycle.beforeRequest(request('tools/call'))).not.toThrow()
  })

  it('refuses a second initialize with -32600', () => {
    const lifecycle = new ServerLifecycle({ strict: true })
    lifecycle.beforeRequest(request('initialize'))
    lifecycle.markInitializing()
    const early = thrownBy(() => lifecycle.beforeRequest(request('initialize', 2)))
    expect((early as JsonRpcError).code).toBe(ErrorCode.InvalidRequest)
    lifecycle.markReady()
    const late = thrownBy(() => lifecycle.beforeRequest(request('initialize', 3)))
    expect(late).toBeInstanceOf(JsonRpcError)
    expect((late as JsonRpcError).code).toBe(ErrorCode.InvalidRequest)
    expect((late as JsonRpcError).message).toMatch(/already initialized/)
  })
})

describe('ServerLifecycle (non-strict)', () => {
  it('allows every request without a prior initialize, including repeated initialize', () => {
    const lifecycle = new ServerLifecycle({ strict: false })
    for (const method of ['tools/list', 'resources/read', 'ping', 'initialize']) {
      expect(() => lifecycle.beforeRequest(request(method))).not.toThrow()
    }
    lifecycle.markInitializing()
    lifecycle.markReady()
    expect(() => lifecycle.beforeRequest(request('initialize'))).not.toThrow()
  })
})

describe('ServerLifecycle wired into an Endpoint', () => {
  it('answers early requests with -32600 on the wire, ping with {}, and serves after initialize', async () => {
    const lifecycle = new ServerLifecycle({ strict: true })
    const rec = await connectToRecorder(new Endpoint({ beforeRequest: (r) => lifecycle.beforeRequest(r) }))
    rec.endpoint.setRequestHandler('tools/list', () => ({ tools: [] }))
    rec.endpoint.setRequestHandler('initialize', () => {
      lifecycle.markInitializing()
      return { protocolVersion: negotiateProtocolVersion('2025-06-18') }
    })
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    await rec.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
    await settle()
    await rec.send({ jsonrpc: '2.0', id: 3, method: 'initialize', params: {} })
    await settle()
    await rec.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' })
    await rec.send({ jsonrpc: '2.0', id: 5, method: 'initialize', params: {} })
    await settle()
    expect(rec.sent).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: tools/list before initialize' } },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, result: { protocolVersion: '2025-06-18' } },
      { jsonrpc: '2.0', id: 4, result: { tools: [] } },
      { jsonrpc: '2.0', id: 5, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: the session is already initialized' } },
    ])
  })
})
