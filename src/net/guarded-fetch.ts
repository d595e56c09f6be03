import { lookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import { isSpecialUseIP } from 'oidc-provider/lib/helpers/fetch_request.js'

export interface GuardedFetchOptions {
  /** The whole budget (ms): name resolution, connection, TLS, headers and body. */
  timeoutMs: number
  /** Development only: private, loopback and link-local addresses are fetched too. */
  allowPrivateAddresses: boolean
  /** Largest response body (bytes): a longer one fails while it is read, and the connection is closed. */
  maxBytes: number
}

/** A response body longer than the fetch allows. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError'
}

/**
 * Whether an address is one we never connect to for a client. IPv4-mapped IPv6 addresses are
 * checked as the IPv4 address they carry, whatever their spelling (`::ffff:7f00:1` is 127.0.0.1;
 * the range list only knows the dotted form).
 */
export function isRefusedAddress(address: string): boolean {
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (mapped !== null) {
    const high = Number.parseInt(mapped[1]!, 16)
    const low = Number.parseInt(mapped[2]!, 16)
    return isSpecialUseIP(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  return isSpecialUseIP(address)
}

/** An outbound request refused before any connection was made. */
export class OutboundAddressError extends Error {
  override name = 'OutboundAddressError'
}

/**
 * fetch() with the checks every outbound request of the authorization server needs (see
 * outboundFetch for the limits and who may reach private addresses): the host
 * is resolved first, every address it resolves to is checked against the special-use ranges
 * (loopback, private, link-local, unique-local, documentation, IPv4-mapped forms…), and the
 * connection goes to the checked address — no second resolution, so a name cannot answer
 * differently the second time. Nothing reaches a refused address, not even a TCP handshake. One
 * deadline covers everything, body included, and the body is cut at `maxBytes` (a declared
 * Content-Length over it is refused before reading). Redirects are not followed.
 */
export async function guardedFetch(url: string | URL, init: RequestInit, options: GuardedFetchOptions): Promise<Response> {
  const target = new URL(url)
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new TypeError(`cannot fetch ${target.protocol} URLs`)
  const deadline = AbortSignal.timeout(options.timeoutMs)
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname
  const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await abortable(lookup(host, { all: true, verbatim: true }), signal)
  if (addresses.length === 0) throw new OutboundAddressError(`${target.hostname} does not resolve`)
  if (!options.allowPrivateAddresses) {
    const refused = addresses.find((entry) => isRefusedAddress(entry.address))
    if (refused !== undefined) throw new OutboundAddressError(`${target.hostname} resolves to ${refused.address}, a private or special-use address: refused`)
  }
  const pinned = addresses[0]!
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all === true) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned])
    else callback(null, pinned.address, pinned.family)
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of new Headers(init.headers)) headers[name] = value
  const method = init.method ?? 'GET'
  const body = requestBody(init.body)
  if (body !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(body.length)
  return new Promise<Response>((resolve, reject) => {
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      { method, headers, signal, lookup: pinnedLookup, ...(isIP(host) === 0 ? { servername: host } : {}) },
      (response) => {
        const status = response.statusCode ?? 502
        const tooLarge = () => new ResponseTooLargeError(`the response from ${target.host} is longer than ${options.maxBytes} bytes`)
        if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) {
          response.destroy()
          reject(tooLarge())
          return
        }
        let received = 0
        response.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (received > options.maxBytes) response.destroy(tooLarge())
        })
        const body = method === 'HEAD' || status === 204 || status === 304 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>)
        resolve(new Response(body, { status, headers: toHeaders(response.headers) }))
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

/** The request bodies our callers send: a string, a form (openid-client's token requests) or bytes. */
function requestBody(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(String(body))
  if (body instanceof Uint8Array) return Buffer.from(body)
  throw new TypeError('guardedFetch sends string, URLSearchParams or Uint8Array bodies only')
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each)
    else if (value !== undefined) headers.set(name, value)
  }
  return headers
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
