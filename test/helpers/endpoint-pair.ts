import { Endpoint, type EndpointOptions } from '../../src/protocol/endpoint.js'
import { InMemoryTransport } from '../../src/transports/memory/in-memory-transport.js'

// captured at import time so `settle()` keeps working while a test runs with vi.useFakeTimers()
const realSetImmediate = globalThis.setImmediate

/**
 * Let queued in-memory deliveries and the promise chains they start run to completion. Works with
 * real and with fake timers (it uses the real setImmediate, which runs after all microtasks).
 */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => realSetImmediate(resolve))
}

export interface EndpointPair {
  a: Endpoint
  b: Endpoint
  aSide: InMemoryTransport
  bSide: InMemoryTransport
  /** Errors each endpoint reported through onerror. */
  aErrors: Error[]
  bErrors: Error[]
}

/** Two Endpoints talking over InMemoryTransport.createLinkedPair(). */
export async function connectEndpoints(aOptions: EndpointOptions = {}, bOptions: EndpointOptions = {}): Promise<EndpointPair> {
  const [aSide, bSide] = InMemoryTransport.createLinkedPair()
  const a = new Endpoint(aOptions)
  const b = new Endpoint(bOptions)
  const aErrors: Error[] = []
  const bErrors: Error[] = []
  a.onerror = (error) => aErrors.push(error)
  b.onerror = (error) => bErrors.push(error)
  await a.connect(aSide)
  await b.connect(bSide)
  return { a, b, aSide, bSide, aErrors, bErrors }
}

export interface WireRecorder {
  endpoint: Endpoint
  /** The endpoint's own transport: `deliverRaw` on it injects a raw value into the endpoint. */
  endpointSide: InMemoryTransport
  /** The far side of the pair: `send` on it plays the peer. */
  wire: InMemoryTransport
  /** Everything the endpoint put on the wire, in order, after a JSON round trip. */
  sent: unknown[]
  /** Errors the endpoint reported through onerror. */
  errors: Error[]
  /** Send a value to the endpoint as the peer would. */
  send(payload: unknown): Promise<void>
  /** Deliver a raw value (anything, even invalid JSON-RPC) to the endpoint synchronously. */
  inject(payload: unknown): void
}

/**
 * Connect `endpoint` to one side of a linked pair and record what arrives on the other side, so a
 * test can see exactly what goes on the wire.
 */
export async function connectToRecorder(endpoint: Endpoint = new Endpoint()): Promise<WireRecorder> {
  const [endpointSide, wire] = InMemoryTransport.createLinkedPair()
  const sent: unknown[] = []
  const errors: Error[] = []
  wire.onmessage = (payload) => sent.push(payload)
  await wire.start()
  endpoint.onerror = (error) => errors.push(error)
  await endpoint.connect(endpointSide)
  return {
    endpoint,
    endpointSide,
    wire,
    sent,
    errors,
    send: (payload) => wire.send(payload as never),
    inject: (payload) => endpointSide.deliverRaw(payload),
  }
}

/** The messages in `sent` that are requests or notifications for `method`. */
export function messagesFor(sent: readonly unknown[], method: string): Array<Record<string, unknown>> {
  return sent.filter((m): m is Record<string, unknown> => isRecord(m) && m.method === method)
}

/** The responses in `sent` (not batches) whose id is `id`. */
export function responsesFor(sent: readonly unknown[], id: unknown): Array<Record<string, unknown>> {
  return sent.filter((m): m is Record<string, unknown> => isRecord(m) && !('method' in m) && m.id === id)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A promise with its resolve function, for handlers a test wants to finish on cue. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
