import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Listen on host:port and print `listening on <url>` once connections are accepted (scripts and
 * tests wait for that line). Resolves with the server and its URL.
 */
export async function listen(handler: Parameters<typeof createServer>[1], host: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const name = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${name}:${address.port}`
  process.stdout.write(`listening on ${url}\n`)
  return { server, url }
}

/** Resolve on SIGINT or SIGTERM, so a command can shut down cleanly. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve(signal)
    }
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
}
