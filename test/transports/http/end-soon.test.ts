import { Agent, createServer, get, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { endSoon } from '../../../src/transports/http/end-soon.js'

let server: Server | undefined

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

async function serve(handler: (res: ServerResponse, path: string) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => handler(res, req.url ?? '/'))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function getText(url: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve(text))
    }).on('error', reject)
  })
}

describe('endSoon', () => {
  it('ends an answer after the current loop turn when the previous one went to another connection', async () => {
    const seen: boolean[] = []
    const url = await serve((res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      endSoon(res, 'later')
      seen.push(res.writableEnded)
      setImmediate(() => seen.push(res.writableEnded))
    })
    // a new server: the first answer goes to a connection endSoon has not answered last
    const response = await fetch(url)
    expect(await response.text()).toBe('later')
    expect(seen).toEqual([false, true])
  })

  it('ends at once an answer that follows one on the same connection (nothing to batch with)', async () => {
    const seen: boolean[] = []
    const url = await serve((res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      endSoon(res, 'answer')
      seen.push(res.writableEnded)
    })
    // one kept-alive socket: the second request arrives on the connection answered last
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    for (let i = 0; i < 2; i++) expect(await getText(url, agent)).toBe('answer')
    agent.destroy()
    expect(seen).toEqual([false, true])
  })

  it('delivers every answer of a burst whole, each to its own client', async () => {
    const url = await serve((res, path) => {
      const body = `answer for ${path}`
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) })
      endSoon(res, body)
    })
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${url}/${i}`).then((r) => r.text())))
    expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => `answer for /${i}`))
  })

  it('leaves alone a response that was ended another way before the batch went out', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      endSoon(res, 'queued')
      res.end('ended at once')
    })
    const response = await fetch(url)
    expect(await response.text()).toBe('ended at once')
  })

  it('destroys a response whose end throws and still answers the rest of the batch', async () => {
    const url = await serve((res, path) => {
      if (path === '/broken') {
        // a declared length the body does not match: end() throws ERR_HTTP_CONTENT_LENGTH_MISMATCH
        res.strictContentLength = true
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100' })
        endSoon(res, 'short')
        return
      }
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' })
      endSoon(res, 'ok')
    })
    const [broken, ...fine] = await Promise.allSettled([
      fetch(`${url}/broken`).then((r) => r.text()),
      ...Array.from({ length: 5 }, () => fetch(`${url}/fine`).then((r) => r.text())),
    ])
    expect(broken.status).toBe('rejected')
    expect(fine).toEqual(Array.from({ length: 5 }, () => ({ status: 'fulfilled', value: 'ok' })))
  })
})
