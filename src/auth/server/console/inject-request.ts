import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'

/** A request handed to a Node request handler in-process. */
export interface InjectedRequest {
  method: string
  /** Path and query, as a server sees `req.url`. */
  url: string
  headers: Record<string, string>
  body?: string
}

/** What the handler answered. */
export interface InjectedResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

/**
 * Runs a Node request handler (oidc-provider's `callback()`) on a request built in memory, with
 * no socket and no network: the console redeems its codes at the provider's token endpoint this
 * way, since the server's public origin may be unreachable from the node itself (behind a load
 * balancer, a NAT, a TLS front). The request goes through the provider's whole token pipeline
 * (client authentication, PKCE, resource indicators, token policy) unchanged.
 */
export function injectRequest(handler: (req: IncomingMessage, res: ServerResponse) => unknown, request: InjectedRequest): Promise<InjectedResponse> {
  const req = new IncomingMessage(new Socket())
  req.method = request.method
  req.url = request.url
  const body = Buffer.from(request.body ?? '')
  req.headers = Object.fromEntries(Object.entries({ ...request.headers, 'content-length': String(body.length) }).map(([name, value]) => [name.toLowerCase(), value]))
  req.rawHeaders = Object.entries(req.headers).flatMap(([name, value]) => [name, String(value)])
  if (body.length > 0) req.push(body)
  req.push(null)
  const res = new ServerResponse(req)
  const chunks: Buffer[] = []
  const collect = (chunk: unknown): void => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string | Uint8Array))
  }
  return new Promise((resolve, reject) => {
    res.write = ((chunk: unknown) => {
      collect(chunk)
      return true
    }) as typeof res.write
    res.end = ((chunk?: unknown) => {
      collect(chunk)
      resolve({ status: res.statusCode, headers: res.getHeaders() as InjectedResponse['headers'], body: Buffer.concat(chunks).toString('utf8') })
      return res
    }) as typeof res.end
    Promise.resolve(handler(req, res)).catch(reject)
  })
}
