import type { RequestListener } from 'node:http'
import type { Observer } from '../observe/observer.js'
import type { DrainOptions } from './drain.js'
import { closeOnSignal, listeningUrl, listenServers } from './serve.js'
import { reachableHost, type StoreStatusEndpoint } from './store-status-endpoint.js'

/** What `start` and `gateway` serve: a main job's handler, its health, and its end. */
export interface ServedJob {
  handler: RequestListener
  health(): Promise<boolean>
  close(): Promise<void>
}

/**
 * How `start` and `gateway` go live once their job is built, in this order: listen (127.0.0.1 and
 * ::1 unless a host is given), handle SIGINT/SIGTERM from that moment (drain, then withdraw the
 * status endpoint and close the job: a signal while the lines below are written drains too),
 * preload the signing keys this very process serves, publish the status endpoint (a `mcp-auth
 * status` right after the line finds the server), then print the `listening on` line scripts wait
 * for (behind a proxy: this node, then the public origin). `closed` settles once a signal ended it all.
 */
export async function serveJob(
  job: ServedJob,
  options: {
    command: string
    port: number
    host: string | undefined
    /** What the refusal of a busy port suggests. */
    how: string
    endpoint: StoreStatusEndpoint | undefined
    drain: Pick<DrainOptions, 'delayMs'>
    warm: () => Promise<unknown>
    origin: string
    /** The public origin was given (`--issuer`): the process runs behind a proxy. */
    behindProxy: boolean
    /** What the job reports through: the health answers are observed too (the job's handler observes its own requests). */
    observer?: Observer
  },
): Promise<{ closed: Promise<void> }> {
  const { endpoint, host, port } = options
  const observer = options.observer
  const health = {
    health: () => job.health(),
    ...(endpoint !== undefined ? { status: endpoint.status } : {}),
    ...(observer !== undefined ? { observe: observer.observeRequests.bind(observer) } : {}),
  }
  const servers = await listenServers(job.handler, health, port, host, () => job.close(), options.how)
  const closed = closeOnSignal(
    servers,
    async () => {
      await endpoint?.withdraw()
      await job.close()
    },
    options.drain,
  )
  await options
    .warm()
    .catch((error: Error) =>
      observer === undefined
        ? process.stderr.write(`mcp-auth ${options.command}: could not preload the signing keys: ${error.message}\n`)
        : observer.log.warn({ reason: error.message }, 'could not preload the signing keys'),
    )
  await endpoint?.publish(listeningUrl(reachableHost(host ?? '127.0.0.1'), port))
  process.stdout.write(options.behindProxy ? `listening on ${listeningUrl(host ?? '127.0.0.1', port)}\npublic origin ${options.origin}\n` : `listening on ${options.origin}\n`)
  return { closed }
}
