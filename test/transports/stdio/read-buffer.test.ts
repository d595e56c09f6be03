import { describe, expect, it } from 'vitest'
import { ReadBuffer, type ReadItem } from '../../../src/transports/stdio/read-buffer.js'
import { serializeMessage } from '../../../src/transports/stdio/serialize-message.js'
import { StdioError } from '../../../src/transports/stdio/stdio-error.js'

const lines = (items: ReadItem[]) => items.map((item) => ('line' in item ? item.line : `<${item.error.code}>`))

function feed(buffer: ReadBuffer, ...chunks: Array<string | Uint8Array>): string[] {
  return chunks.flatMap((chunk) => lines(buffer.append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)))
}

describe('ReadBuffer', () => {
  it('joins a message split across chunks into one line', () => {
    const buffer = new ReadBuffer()
    expect(feed(buffer, '{"jsonrpc":', '"2.0","method"', ':"ping"}')).toEqual([])
    expect(feed(buffer, '\n')).toEqual(['{"jsonrpc":"2.0","method":"ping"}'])
    expect(buffer.pendingBytes).toBe(0)
  })

  it('splits several messages that arrive in one chunk, keeping the unfinished tail', () => {
    const buffer = new ReadBuffer()
    expect(feed(buffer, '{"a":1}\n{"b":2}\n{"c":')).toEqual(['{"a":1}', '{"b":2}'])
    expect(feed(buffer, '3}\n')).toEqual(['{"c":3}'])
  })

  it('decodes multi-byte UTF-8 correctly wherever a chunk boundary cuts it', () => {
    const text = JSON.stringify({ text: 'é中😀 naïve' })
    const bytes = Buffer.from(`${text}\n`)
    for (let cut = 1; cut < bytes.length; cut++) {
      const buffer = new ReadBuffer()
      expect(feed(buffer, bytes.subarray(0, cut), bytes.subarray(cut))).toEqual([text])
    }
    // one byte at a time
    const buffer = new ReadBuffer()
    expect(feed(buffer, ...[...bytes].map((b) => Uint8Array.of(b)))).toEqual([text])
  })

  it('tolerates CRLF line endings, even when the \\r and \\n arrive in different chunks', () => {
    const buffer = new ReadBuffer()
    expect(feed(buffer, '{"a":1}\r\n{"b":2}\r', '\n')).toEqual(['{"a":1}', '{"b":2}'])
  })

  it('skips empty and blank lines', () => {
    const buffer = new ReadBuffer()
    expect(feed(buffer, '\n\r\n  \n{"a":1}\n\n')).toEqual(['{"a":1}'])
  })

  it('refuses a line over the limit and still processes the lines after it', () => {
    const buffer = new ReadBuffer(16)
    const items = buffer.append(Buffer.from(`{"a":1}\n${'x'.repeat(40)}\n{"b":2}\n`))
    expect(lines(items)).toEqual(['{"a":1}', '<line_too_long>', '{"b":2}'])
    const refusal = items[1] as { error: StdioError }
    expect(refusal.error).toBeInstanceOf(StdioError)
    expect(refusal.error.message).toMatch(/16 bytes/)
  })

  it('gives up on an endless line before its newline, holds no more than the limit, and resumes after it', () => {
    const buffer = new ReadBuffer(16)
    expect(feed(buffer, 'x'.repeat(10))).toEqual([])
    expect(feed(buffer, 'x'.repeat(10))).toEqual(['<line_too_long>'])
    for (let i = 0; i < 100; i++) expect(feed(buffer, 'y'.repeat(1000))).toEqual([])
    expect(buffer.pendingBytes).toBe(0)
    expect(feed(buffer, 'zzz\n{"ok":true}\n')).toEqual(['{"ok":true}'])
  })

  it('accepts a line of exactly the limit, with LF or CRLF', () => {
    const line = `"${'x'.repeat(14)}"`
    expect(feed(new ReadBuffer(16), `${line}\n`)).toEqual([line])
    expect(feed(new ReadBuffer(16), `${line}\r\n`)).toEqual([line])
    expect(feed(new ReadBuffer(16), `${line}x\n`)).toEqual(['<line_too_long>'])
  })

  it('reports a line that is not valid UTF-8 and goes on', () => {
    const buffer = new ReadBuffer()
    expect(feed(buffer, Uint8Array.of(0x7b, 0xff, 0x7d, 0x0a), '{"a":1}\n')).toEqual(['<invalid_utf8>', '{"a":1}'])
  })

  it('forgets an unfinished line on clear()', () => {
    const buffer = new ReadBuffer()
    feed(buffer, '{"half":')
    buffer.clear()
    expect(feed(buffer, '{"a":1}\n')).toEqual(['{"a":1}'])
  })
})

describe('serializeMessage', () => {
  it('writes one line: the JSON text, newlines inside strings escaped, and a final newline', () => {
    const text = serializeMessage({ jsonrpc: '2.0', method: 'log', params: { text: 'a\nb\r\nc\u2028' } })
    expect(text.endsWith('\n')).toBe(true)
    expect(text.slice(0, -1)).not.toMatch(/[\r\n]/)
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', method: 'log', params: { text: 'a\nb\r\nc\u2028' } })
  })

  it('round-trips through ReadBuffer', () => {
    const message = { jsonrpc: '2.0' as const, id: 7, result: { text: 'héllo 😀' } }
    expect(lines(new ReadBuffer().append(Buffer.from(serializeMessage(message)))).map((l) => JSON.parse(l))).toEqual([message])
  })
})
