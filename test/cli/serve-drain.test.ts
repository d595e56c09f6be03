import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliServer, drain, listenOn } from '../../src/cli/serve.js'

const servers: Array<ReturnType<typeof createCliServer>> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections()
})

async function serve(...args: Parameters<typeof createCliServer>): Promise<{ server: ReturnType<typeof createCliServer>; url: string }> {
  const server = createCliServer(...args)
  servers.push(server)
  await listenOn(server, 0, '127.0.0.1')
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

describe('createCliServer health endpoint', () => {
  it('answers /healthz 200 while the check passes and 503 once it fails, without reaching the handler', async () => {
    let healthy = true
    let handled = 0
    const { url } = await serve(
      (_req, res) => {
        handled += 1
        res.end('app')
      },
      { health: async () => healthy },
    )
    const ok = await fetch(`${url}/healthz`)
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ status: 'ok' })
    healthy = false
    const down = await fetch(`${url}/healthz`)
    expect(down.status).toBe(503)
    expect(await down.json()).toEqual({ status: 'unavailable' })
    expect(handled).toBe(0)
    expect(await (await fetch(`${url}/other`)).text()).toBe('app')
  })

  it('leaves /healthz to the handler when no check is given', async () => {
    const { url } = await serve((_req, res) => res.end('mine'))
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('mine')
  })
})

describe('drain', () => {
  it('lets a request in flight finish (a POST’s SSE answer too), refuses new connections, then cuts GET streams', async () => {
    let release: () => void = () => undefined
    const { server, url } = await serve(
      (req, res) => {
        if (req.method === 'POST') {
          // an SSE answer to a POST: work in flight, waited for
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write('data: started\n\n')
          release = () => res.end('data: finished\n\n')
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(': open\n\n')
      },
      { health: async () => true },
    )
    const slow = fetch(`${url}/mcp`, { method: 'POST' }).then((res) => res.text())
    const stream = await fetch(`${url}/events`)
    const reader = stream.body!.getReader()
    await reader.read()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const port = new URL(url).port
    const draining = drain(server, 5_000)
    const health = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', (error) => resolve({ status: 0, body: (error as NodeJS.ErrnoException).code ?? '' }))
      req.end()
      setTimeout(() => reject(new Error('no answer')), 2_000).unref()
    })
    // a new connection is refused: the listener no longer accepts
    expect(health).toEqual({ status: 0, body: 'ECONNREFUSED' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    release()
    expect(await slow).toBe('data: started\n\ndata: finished\n\n')
    const waited = Date.now()
    await draining
    expect(Date.now() - waited).toBeLessThan(1_000)
    // the event stream was cut once the request in flight was done (its client resumes elsewhere)
    const ended = await (async () => {
      for (;;) if ((await reader.read()).done) return 'ended'
    })().catch(() => 'cut')
    expect(['ended', 'cut']).toContain(ended)
  })

  it('closes what is left once the timeout passes', async () => {
    const { server, url } = await serve(() => undefined)
    const hanging = fetch(`${url}/never`).then(
      () => 'answered',
      () => 'cut',
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await drain(server, 200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(await hanging).toBe('cut')
  })
})
