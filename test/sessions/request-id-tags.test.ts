/**
 * Ids of the server's requests to the client when several processes serve one session (issue 16),
 * including the string ids the gateway relays from its children (issue 31: a child's `s1`).
 */
import { describe, expect, it } from 'vitest'
import type { JsonRpcMessage } from '../../src/jsonrpc/index.js'
import { answeredTag, nodeOfTag, tagOutgoing, tagPrefix, untag } from '../../src/sessions/request-id-tags.js'

const prefix = tagPrefix('0a1b2c3d', 5)

/** The client's answer to `request` as it went out, and that answer as this transport takes it back. */
function roundTrip(request: JsonRpcMessage & { id: string | number }): { sent: JsonRpcMessage; back: JsonRpcMessage | undefined; tag: string | undefined } {
  const sent = tagOutgoing(request, prefix)
  const answer: JsonRpcMessage = { jsonrpc: '2.0', id: (sent as { id: string }).id, result: {} }
  const tag = answeredTag(answer)
  return { sent, tag, back: tag === undefined ? undefined : untag(answer, tag, prefix) }
}

describe('request id tags', () => {
  it('gives a numeric id back as the same number', () => {
    const { sent, tag, back } = roundTrip({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage' })
    expect((sent as { id: unknown }).id).toBe(`${prefix}7`)
    expect(nodeOfTag(tag!)).toBe('0a1b2c3d')
    expect(back).toEqual({ jsonrpc: '2.0', id: 7, result: {} })
  })

  it('gives a string id back as the same string, even one made of digits', () => {
    expect(roundTrip({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage' }).back).toEqual({ jsonrpc: '2.0', id: 's1', result: {} })
    expect(roundTrip({ jsonrpc: '2.0', id: '42', method: 'elicitation/create' }).back).toEqual({ jsonrpc: '2.0', id: '42', result: {} })
  })

  it("tags a cancellation of the server's own string-id request", () => {
    const cancel = tagOutgoing({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's1' } }, prefix)
    expect(cancel).toMatchObject({ params: { requestId: `${prefix}~s1` } })
  })

  it("leaves an answer to another transport's request alone", () => {
    const answer: JsonRpcMessage = { jsonrpc: '2.0', id: `${tagPrefix('0a1b2c3d', 6)}~s1`, result: {} }
    expect(untag(answer, answeredTag(answer)!, prefix)).toBeUndefined()
  })
})
