/**
 * The 2024-11-05 HTTP+SSE server pair over real HTTP: GET /sse opens a session whose first event
 * names the POST endpoint, POSTs there are accepted with 202 and answered on the stream, and every
 * refusal has its status.
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
import { afterEach, describe, expect, it } from 'vitest'
import { UUID, callTool, closeAll, getSse, notification, post, rawRequest, request, startKoaApp, type SseStream } from '../streamable-http/server/http-harness.js'

afterEach(closeAll)

async function start(options: Parameters<typeof startKoaApp>[0] = {}): Promise<{ base: string; port: number }> {
  const { port } = await startKoaApp(options)
  return { base: `http://127.0.0.1:${port}`, port }
}

/** Open the stream and read its endpoint event: the messages URL of the new session. */
async function open(base: string): Promise<{ stream: SseStream; messages: string }> {
  const stream = await getSse(`${base}/sse`)
  const endpoint = await stream.waitForEvent((event) => event.event === 'endpoint')
  return { stream, messages: new URL(endpoint.data, base).href }
}

const initialize = request(0, 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'legacy-test', version: '1' } })

describe('legacy HTTP+SSE server', () => {
  it('opens a session whose endpoint event names /messages with a random session id', async () => {
    const { base } = await start()
    const { stream, messages } = await open(base)
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const url = new URL(messages)
    expect(url.origin).toBe(base)
    expect(url.pathname).toBe('/messages')
    expect(url.searchParams.get('sessionId')).toMatch(UUID)
    const second = await open(base)
    expect(new URL(second.messages).searchParams.get('sessionId')).not.toBe(url.searchParams.get('sessionId'))
  })

  it('accepts POSTs with 202 and answers them on the stream', async () => {
    const { base } = await start()
    const { stream, messages } = await open(base)
    const accepted = await post(messages, initialize)
    expect(accepted.status).toBe(202)
    await stream.waitForMessage((m) => m.id === 0 && m.result?.protocolVersion === '2024-11-05')
    expect((await post(messages, notification('notifications/initialized'))).status).toBe(202)
    expect((await post(messages, callTool(1, 'echo', { text: 'legacy' }))).status).toBe(202)
    const answer = await stream.waitForMessage((m) => m.id === 1)
    expect(answer.result).toEqual({ content: [{ type: 'text', text: 'legacy' }] })
  })

  it('ends the session when the stream closes: its messages URL then answers 404', async () => {
    const { base } = await start()
    const { stream, messages } = await open(base)
    stream.abort()
    // the server sees the close a moment later
    let status = 0
    for (let i = 0; i < 50 && status !== 404; i++) {
      status = (await post(messages, initialize)).status
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(status).toBe(404)
  })

  it('refuses a POST without sessionId with 400 and an unknown one with 404', async () => {
    const { base } = await start()
    expect((await post(`${base}/messages`, initialize)).status).toBe(400)
    expect((await post(`${base}/messages?sessionId=00000000-0000-4000-8000-000000000000`, initialize)).status).toBe(404)
  })

  it('refuses the wrong method on each path with 405 and its Allow', async () => {
    const { base } = await start()
    const onStream = await fetch(`${base}/sse`, { method: 'POST', headers: { Accept: 'text/event-stream' } })
    expect(onStream.status).toBe(405)
    expect(onStream.headers.get('allow')).toBe('GET')
    const onMessages = await fetch(`${base}/messages?sessionId=x`, { method: 'GET' })
    expect(onMessages.status).toBe(405)
    expect(onMessages.headers.get('allow')).toBe('POST')
  })

  it('refuses a GET that does not accept text/event-stream with 406', async () => {
    const { base } = await start()
    const response = await fetch(`${base}/sse`, { headers: { Accept: 'application/json' } })
    expect(response.status).toBe(406)
  })

  it('refuses a POST body that is not application/json with 415 and one past the limit with 413', async () => {
    const { base } = await start({ maxBodyBytes: 1024 })
    const { messages } = await open(base)
    const wrongType = await post(messages, 'text', { headers: { 'Content-Type': 'text/plain' } })
    expect(wrongType.status).toBe(415)
    const tooBig = await post(messages, callTool(1, 'echo', { text: 'x'.repeat(4096) }))
    expect(tooBig.status).toBe(413)
  })

  it('refuses a foreign Origin and a foreign Host with 403 on both paths', async () => {
    const { base, port } = await start()
    expect((await fetch(`${base}/sse`, { headers: { Accept: 'text/event-stream', Origin: 'https://evil.example' } })).status).toBe(403)
    const { messages } = await open(base)
    expect((await post(messages, initialize, { headers: { Origin: 'https://evil.example' } })).status).toBe(403)
    // fetch may not set Host: node:http may
    const stream = await rawRequest(port, { method: 'GET', path: '/sse', headers: { Accept: 'text/event-stream', Host: 'evil.example' } })
    expect(stream.status).toBe(403)
    const path = new URL(messages).pathname + new URL(messages).search
    const message = await rawRequest(port, { method: 'POST', path, headers: { 'Content-Type': 'application/json', Host: 'evil.example' }, body: JSON.stringify(initialize) })
    expect(message.status).toBe(403)
  })

  it('refuses new streams past maxSessions with 503', async () => {
    const { base } = await start({ maxSessions: 1 })
    await open(base)
    const refused = await fetch(`${base}/sse`, { headers: { Accept: 'text/event-stream' } })
    expect(refused.status).toBe(503)
  })
})
