import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaults } from '../config/defaults.js'
import type { Metrics } from '../observe/metrics.js'
import { listenOrExplain, listeningUrl } from './serve.js'

/** The separate metrics listener: where it listens, and its end. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  readonly url: string
  close(): Promise<void>
}

/**
 * A listener of its own for Prometheus (`--metrics-port`): `GET /metrics` (and HEAD) in the text
 * exposition format, 404 for any other path, 405 for any other method; nothing else of the server
 * is reachable through it. Bound to loopback unless the operator names an interface, so the metrics
 * are never public by accident.
 */
export async function listenMetrics(metrics: Metrics, options: { port: number; host: string }): Promise<MetricsListener> {
  const path = defaults.observe.metrics.path
  const server: Server = createServer({ headersTimeout: defaults.cli.headersTimeoutMs, requestTimeout: defaults.cli.requestTimeoutMs }, (req, res) => {
    const query = req.url?.indexOf('?') ?? -1
    const requestPath = query === -1 ? req.url : req.url?.slice(0, query)
    if (requestPath !== path) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the metrics are at ${path}\n`)
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET the metrics\n')
      return
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
        res.end(req.method === 'HEAD' ? undefined : body)
      },
      (error: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`the metrics could not be collected: ${error.message}\n`)
      },
    )
  })
  await listenOrExplain(server, options.port, options.host, async () => {}, 'choose another with --metrics-port')
  const { port } = server.address() as AddressInfo
  return {
    url: `${listeningUrl(options.host, port)}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
