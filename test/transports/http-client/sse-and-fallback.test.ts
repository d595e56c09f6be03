import { afterEach, describe, expect, it } from 'vitest'
import { McpClient } from '../../../src/client/index.js'
import { HttpTransportError } from '../../../src/transports/http/http-transport-error.js'
import { connectHttp } from '../../../src/transports/http-client/index.js'
import { SseClientTransport } from '../../../src/transports/sse-legacy/client/index.js'
import { rawServer, sdkLegacyPeer, sdkStreamablePeer } from './sdk-peers.js'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function newClient(): McpClient {
  const c = new McpClient({ name: 'fallback-test', version: '1' })
  cleanups.push(() => c.close())
  return c
}

describe('SseClientTransport (2024-11-05 HTTP+SSE)', () => {
  it('connects to the official SDK legacy server through its endpoint event and calls tools', async () => {
    const peer = await sdkLegacyPeer()
    cleanups.push(() => peer.close())
    const c = newClient()
    await c.connect(new SseClientTransport(peer.url))
    expect((await c.callTool('echo', { text: 'legacy' })).content).toEqual([{ type: 'text', text: 'legacy' }])
  })

  it('refuses an endpoint on another origin', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write('event: endpoint\ndata: http://evil.example/messages?sessionId=1\n\n')
    })
    cleanups.push(() => server.close())
    const error = await newClient()
      .connect(new SseClientTransport(server.url))
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(HttpTransportError)
    expect(error).toMatchObject({ code: 'invalid_endpoint' })
  })
})

describe('connectHttp', () => {
  it('stays on Streamable HTTP when the server speaks it', async () => {
    const peer = await sdkStreamablePeer()
    cleanups.push(() => peer.close())
    const { kind } = await connectHttp(newClient(), peer.url)
    expect(kind).toBe('streamable-http')
  })

  it('falls back to HTTP+SSE when POST initialize gets a 4xx', async () => {
    const peer = await sdkLegacyPeer()
    cleanups.push(() => peer.close())
    const c = newClient()
    const { kind } = await connectHttp(c, peer.url)
    expect(kind).toBe('sse')
    expect((await c.callTool('echo', { text: 'fell back' })).content).toEqual([{ type: 'text', text: 'fell back' }])
  })

  it('does not fall back on 401: that is for an auth layer', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }).end()
    })
    cleanups.push(() => server.close())
    const error = await connectHttp(newClient(), server.url).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"' })
  })
})
