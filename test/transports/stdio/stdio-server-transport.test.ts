import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Endpoint } from '../../../src/protocol/endpoint.js'
import { StdioError, StdioServerTransport } from '../../../src/transports/stdio/index.js'

/** A server transport on in-process streams, recording what it reports and writes. */
async function open(options: { maxLineBytes?: number } = {}) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const transport = new StdioServerTransport({ stdin, stdout, ...options })
  const messages: unknown[] = []
  const errors: Error[] = []
  let closes = 0
  transport.onmessage = (payload) => messages.push(payload)
  transport.onerror = (error) => errors.push(error)
  transport.onclose = () => closes++
  await transport.start()
  let written = ''
  stdout.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')))
  return {
    stdin,
    stdout,
    transport,
    messages,
    errors,
    closes: () => closes,
    written: () => written,
    /** The lines written so far, parsed. */
    output: () =>
      written
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('StdioServerTransport', () => {
  it('hands every JSON value on unvalidated, one per line', async () => {
    const t = await open()
    t.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{}\n[1,2]\n42\n')
    await tick()
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, [1, 2], 42])
    expect(t.written()).toBe('')
  })

  it('answers a non-JSON line with -32700 and id null, reports it, and keeps going', async () => {
    const t = await open()
    t.stdin.write('this is not json\n{"jsonrpc":"2.0","method":"after"}\n')
    await tick()
    expect(t.output()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } }])
    expect(t.errors).toHaveLength(1)
    expect(t.messages).toEqual([{ jsonrpc: '2.0', method: 'after' }])
  })

  it('answers a line that is not valid UTF-8 with -32700', async () => {
    const t = await open()
    t.stdin.write(Buffer.from([0x7b, 0x22, 0xc3, 0x22, 0x7d, 0x0a]))
    await tick()
    expect(t.output()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/UTF-8/) } }])
    expect(t.messages).toEqual([])
  })

  it('reports an oversized line without answering and processes the next one', async () => {
    const t = await open({ maxLineBytes: 64 })
    t.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { pad: 'x'.repeat(200) } })}\n{"jsonrpc":"2.0","method":"small"}\n`)
    await tick()
    expect(t.errors.map((e) => (e as StdioError).code)).toEqual(['line_too_long'])
    expect(t.messages).toEqual([{ jsonrpc: '2.0', method: 'small' }])
    expect(t.written()).toBe('')
  })

  it('writes nothing but JSON-RPC lines to stdout, whatever arrives', async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let raw = ''
    stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
    const endpoint = new Endpoint()
    endpoint.onerror = () => {}
    endpoint.setRequestHandler('echo', (params) => params)
    await endpoint.connect(new StdioServerTransport({ stdin, stdout }))
    stdin.write(
      [
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        'garbage',
        '',
        '{"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"line1\\nline2"}}\r',
        '{}',
        '{"jsonrpc":"2.0","id":3,"method":"nope"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '',
      ].join('\n'),
    )
    await tick()
    await tick()
    expect(raw.endsWith('\n')).toBe(true)
    const output = raw
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const message of output) {
      expect(message.jsonrpc).toBe('2.0')
      expect('result' in message !== 'error' in message).toBe(true)
    }
    const byId = (id: unknown) => output.filter((m) => m.id === id)
    expect(byId(1)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
    expect(byId(2)).toEqual([{ jsonrpc: '2.0', id: 2, result: { text: 'line1\nline2' } }])
    expect(byId(3)[0]?.error).toMatchObject({ code: -32601 })
    expect(
      byId(null)
        .map((m) => (m.error as { code: number }).code)
        .sort(),
    ).toEqual([-32700, -32600].sort())
    expect(output).toHaveLength(5)
  })

  it('closes when stdin ends, once', async () => {
    const t = await open()
    t.stdin.end()
    await tick()
    expect(t.closes()).toBe(1)
    await t.transport.close()
    expect(t.closes()).toBe(1)
  })

  it('detaches from stdin on close, so later input is not delivered', async () => {
    const t = await open()
    await t.transport.close()
    expect(t.stdin.listenerCount('data')).toBe(0)
    expect(t.stdin.listenerCount('end')).toBe(0)
    t.stdin.write('{"jsonrpc":"2.0","method":"late"}\n')
    await tick()
    expect(t.messages).toEqual([])
    expect(t.closes()).toBe(1)
  })

  it('refuses to send before start and after close', async () => {
    const early = new StdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough() })
    await expect(early.send({ jsonrpc: '2.0', method: 'x' })).rejects.toMatchObject({ code: 'not_connected' })
    const t = await open()
    await t.transport.close()
    await expect(t.transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(StdioError)
  })

  it('waits for drain when stdout pushes back', async () => {
    const stdin = new PassThrough()
    const pendingWrites: Array<() => void> = []
    const stdout = new Writable({
      highWaterMark: 8,
      write(_chunk, _encoding, callback) {
        pendingWrites.push(callback)
      },
    })
    const transport = new StdioServerTransport({ stdin, stdout })
    await transport.start()
    let sent = false
    const sending = transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(100) } }).then(() => (sent = true))
    await tick()
    expect(sent).toBe(false)
    pendingWrites.shift()!()
    await sending
    expect(sent).toBe(true)
  })

  it('reports stream errors through onerror instead of crashing', async () => {
    const t = await open()
    t.stdout.emit('error', new Error('EPIPE'))
    expect(t.errors.map((e) => e.message)).toEqual(['EPIPE'])
  })
})
