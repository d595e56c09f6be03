import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditEvent } from '../../src/observe/audit-event.js'
import { createMetrics, metricsOf } from '../../src/observe/create-metrics.js'
import type { Metrics } from '../../src/observe/metrics.js'
import { Observer } from '../../src/observe/observer.js'
import { noteRoute, requestRecord } from '../../src/observe/request-record.js'

/** The value of one series (labels matched exactly), 0 when it was never counted. */
async function value(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name)
  if (metric === undefined) throw new Error(`no metric ${name}`)
  const { values } = await metric.get()
  const wanted = Object.entries(labels)
  const found = values.filter((entry) => wanted.every(([key, v]) => entry.labels[key] === v) && Object.keys(entry.labels).filter((key) => key !== 'le').length === wanted.length)
  return found.reduce((total, entry) => total + entry.value, 0)
}

const event = (type: AuditEvent['type'], result: AuditEvent['result'], more: Partial<AuditEvent> = {}): AuditEvent => ({ type, result, ...more })

describe('createMetrics: audit events', () => {
  it('counts token answers by grant type and result, an unknown grant type as other', async () => {
    const observer = new Observer()
    const metrics = createMetrics(observer)
    observer.audit(event('token.issued', 'success', { details: { grant_type: 'client_credentials' } }))
    observer.audit(event('token.issued', 'success', { details: { grant_type: 'client_credentials' } }))
    observer.audit(event('token.issued', 'success', { details: { grant_type: 'authorization_code' } }))
    observer.audit(event('token.refused', 'refused', { reason: 'invalid_grant', details: { grant_type: 'refresh_token' } }))
    observer.audit(event('token.issued', 'success', { details: { grant_type: 'urn:example:made-up' } }))
    expect(await value(metrics, 'mcp_auth_token_requests_total', { grant_type: 'client_credentials', result: 'success' })).toBe(2)
    expect(await value(metrics, 'mcp_auth_token_requests_total', { grant_type: 'authorization_code', result: 'success' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_token_requests_total', { grant_type: 'refresh_token', result: 'refused' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_token_requests_total', { grant_type: 'other', result: 'success' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_refusals_total', { event: 'token.refused', reason: 'invalid_grant' })).toBe(1)
  })

  it('counts sign-ins by result and factor, rate-limit refusals by surface, registrations and children', async () => {
    const observer = new Observer()
    const metrics = createMetrics(observer)
    for (let i = 0; i < 3; i++) observer.audit(event('sign-in.failed', 'failure', { reason: 'wrong password', details: { factor: 'password' } }))
    observer.audit(event('sign-in.succeeded', 'success', { details: { factor: 'password' } }))
    observer.audit(event('sign-in.rate-limited', 'refused', { reason: 'too many attempts', details: { factor: 'password' } }))
    observer.audit(event('mcp.rate-limited', 'refused', { reason: 'rate limit' }))
    observer.audit(event('mcp.rate-limited', 'refused', { reason: 'rate limit' }))
    observer.audit(event('client.registered', 'success'))
    observer.audit(event('gateway.child-started', 'success'))
    observer.audit(event('gateway.child-started', 'success'))
    observer.audit(event('gateway.child-crashed', 'failure', { reason: 'exited' }))
    expect(await value(metrics, 'mcp_auth_sign_ins_total', { result: 'failure', factor: 'password' })).toBe(3)
    expect(await value(metrics, 'mcp_auth_sign_ins_total', { result: 'success', factor: 'password' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_sign_ins_total', { result: 'rate_limited', factor: 'password' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_rate_limited_total', { surface: 'sign-in' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_rate_limited_total', { surface: 'mcp' })).toBe(2)
    expect(await value(metrics, 'mcp_auth_client_registrations_total')).toBe(1)
    expect(await value(metrics, 'mcp_auth_gateway_children_started_total')).toBe(2)
    expect(await value(metrics, 'mcp_auth_gateway_children_crashed_total')).toBe(1)
    expect(await value(metrics, 'mcp_auth_refusals_total', { event: 'sign-in.failed', reason: 'wrong password' })).toBe(3)
  })

  it('never takes outside input as a label: a reason that is not a plain phrase, or past the cap, is other', async () => {
    const observer = new Observer()
    const metrics = createMetrics(observer)
    observer.audit(event('sign-in.failed', 'failure', { reason: 'secret\nvalue="x"' }))
    for (let i = 0; i < 150; i++) observer.audit(event('sign-in.failed', 'failure', { reason: `reason ${i}` }))
    const { values } = await metrics.registry.getSingleMetric('mcp_auth_refusals_total')!.get()
    expect(values.length).toBeLessThanOrEqual(101)
    expect(values.some((entry) => String(entry.labels['reason']).includes('secret'))).toBe(false)
    expect(await value(metrics, 'mcp_auth_refusals_total', { event: 'sign-in.failed', reason: 'other' })).toBe(51)
  })
})

describe('createMetrics: requests', () => {
  let server: Server
  let url: string
  let observer: Observer
  let metrics: Metrics

  beforeAll(async () => {
    observer = new Observer()
    metrics = createMetrics(observer)
    // a router that notes what ours do: the route template, and the MCP method of a JSON-RPC body
    const route = (req: IncomingMessage): void => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      if (path === '/token') noteRoute(req, '/token')
      if (path === '/mcp') {
        noteRoute(req, '/mcp')
        requestRecord(req)!.mcpMethod = req.headers['x-method'] as string
      }
    }
    server = createServer(
      observer.observeRequests((req, res) => {
        route(req)
        const status = Number(req.headers['x-status'] ?? 200)
        res.writeHead(status, { 'content-length': '2' }).end('ok')
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  const send = (path: string, headers: Record<string, string> = {}, method = 'POST') => fetch(`${url}${path}`, { method, headers }).then((r) => r.text())

  it('counts requests by method, route template and status class, and times /token', async () => {
    for (let i = 0; i < 4; i++) await send('/token')
    await send('/token', { 'x-status': '400' })
    await send('/somewhere/with-a-code-abc123', {}, 'GET')
    expect(await value(metrics, 'mcp_auth_http_requests_total', { method: 'POST', route: '/token', status: '2xx' })).toBe(4)
    expect(await value(metrics, 'mcp_auth_http_requests_total', { method: 'POST', route: '/token', status: '4xx' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_http_requests_total', { method: 'GET', route: 'unmatched', status: '2xx' })).toBe(1)
    const { values } = await metrics.registry.getSingleMetric('mcp_auth_token_request_duration_seconds')!.get()
    expect(values.find((entry) => (entry as { metricName?: string }).metricName === 'mcp_auth_token_request_duration_seconds_count')?.value).toBe(5)
    const text = (await metrics.scrape()).body
    expect(text).not.toContain('abc123')
  })

  it('counts MCP requests by spec method (others as other) and status, with their latency; 503s by route', async () => {
    for (let i = 0; i < 3; i++) await send('/mcp', { 'x-method': 'tools/call' })
    await send('/mcp', { 'x-method': 'tools/list' })
    await send('/mcp', { 'x-method': 'my/own-method' })
    await send('/mcp', { 'x-method': 'tools/call', 'x-status': '503' })
    expect(await value(metrics, 'mcp_auth_mcp_requests_total', { method: 'tools/call', status: '2xx' })).toBe(3)
    expect(await value(metrics, 'mcp_auth_mcp_requests_total', { method: 'tools/call', status: '5xx' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_mcp_requests_total', { method: 'tools/list', status: '2xx' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_mcp_requests_total', { method: 'other', status: '2xx' })).toBe(1)
    expect(await value(metrics, 'mcp_auth_unavailable_responses_total', { route: '/mcp' })).toBe(1)
    const { values } = await metrics.registry.getSingleMetric('mcp_auth_mcp_request_duration_seconds')!.get()
    expect(
      values.find((entry) => (entry as { metricName?: string }).metricName === 'mcp_auth_mcp_request_duration_seconds_count' && entry.labels['method'] === 'tools/call')?.value,
    ).toBe(4)
  })
})

describe('metricsOf', () => {
  it('is undefined while metrics are off, and each observer has a registry of its own', async () => {
    const off = new Observer()
    expect(metricsOf(off)).toBeUndefined()
    const a = new Observer()
    const b = new Observer()
    const ma = createMetrics(a)
    expect(createMetrics(a)).toBe(ma)
    const mb = createMetrics(b)
    a.audit(event('client.registered', 'success'))
    expect(await value(ma, 'mcp_auth_client_registrations_total')).toBe(1)
    expect(await value(mb, 'mcp_auth_client_registrations_total')).toBe(0)
    const text = (await ma.scrape()).body
    expect(text).toContain('process_cpu_user_seconds_total')
    expect(text).toContain('# TYPE mcp_auth_http_requests_total counter')
  })
})
