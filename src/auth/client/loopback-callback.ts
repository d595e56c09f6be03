import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaults } from '../../config/defaults.js'
import { PAGE_HEADERS, renderView } from '../../views/render-view.js'

/** A one-shot HTTP listener on 127.0.0.1 that receives the authorization response (RFC 8252 §7.3). */
export interface LoopbackCallback {
  /** The redirect URI to register and send: http://127.0.0.1:<port><path>. */
  redirectUri: string
  /** Resolves with the full callback URL once the browser arrives; rejects on timeout, close or abort. */
  result: Promise<URL>
  close(): void
}

/** The page the browser lands on: the authorization server's layout and stylesheet, no script. */
const PAGE = (title: string, text: string): string => renderView('callback', title, { heading: title, text, serverName: 'mcp-auth' })

/**
 * Listens for the redirect back from the authorization server. `port` 0 takes an ephemeral
 * port; a busy preferred port falls back to an ephemeral one unless `strictPort` is set, in
 * which case the error says which port is taken. The page shown in the browser says whether
 * the login worked; the window can then be closed.
 */
export async function startLoopbackCallback(
  options: {
    port?: number
    strictPort?: boolean
    timeoutMs?: number
    /** Runs on the arriving response before anything else; what it throws rejects `result` and the page says the sign-in was refused. */
    check?: (response: URL) => void
    /**
     * The login's `state`: a request carrying another (a stray tab, a page probing loopback ports)
     * is answered with a page saying so and ignored; the login goes on waiting for its own.
     */
    state?: string
    /** Aborting stops the wait: the listener closes and `result` rejects with the signal's reason. */
    signal?: AbortSignal
  } = {},
): Promise<LoopbackCallback> {
  const path = defaults.oauthClient.callbackPath
  let resolve!: (url: URL) => void
  let reject!: (error: Error) => void
  const result = new Promise<URL>((res, rej) => {
    resolve = res
    reject = rej
  })
  result.catch(() => undefined)
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`)
    if (url.pathname !== path) {
      res.writeHead(404).end()
      return
    }
    if (options.state !== undefined && url.searchParams.get('state') !== options.state) {
      res.writeHead(400, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' })
      res.end(PAGE('Not this sign-in', 'This response does not belong to the sign-in the application is waiting for, so it was ignored. You can close this window.'))
      return
    }
    try {
      options.check?.(url)
    } catch (refusal) {
      res.writeHead(400, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' })
      res.end(PAGE('Sign-in refused', 'The response did not come from the server this application sent you to, so it was not used. You can close this window.'))
      reject(refusal as Error)
      return
    }
    const error = url.searchParams.get('error')
    res.writeHead(error === null ? 200 : 400, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' })
    res.end(
      error === null
        ? PAGE('Signed in', 'You can close this window and return to the application.')
        : PAGE('Sign-in failed', 'The authorization server refused the request. You can close this window.'),
    )
    resolve(url)
  })
  const listen = (port: number): Promise<void> =>
    new Promise((res, rej) => {
      server.once('error', rej)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', rej)
        res()
      })
    })
  const preferred = options.port ?? 0
  try {
    await listen(preferred)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || preferred === 0) throw error
    if (options.strictPort === true) throw new Error(`the callback port ${preferred} is in use; free it or choose another with --callback-port`, { cause: error })
    await listen(0)
  }
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
  const timeoutMs = options.timeoutMs ?? defaults.oauthClient.callbackTimeoutMs
  const timer = setTimeout(() => reject(new Error(`login not completed within ${duration(timeoutMs)}: the browser did not come back from the login page`)), timeoutMs)
  timer.unref()
  const close = (reason: Error = new Error('the login was cancelled')): void => {
    clearTimeout(timer)
    server.closeAllConnections()
    server.close()
    reject(reason)
  }
  const { signal } = options
  const onAbort = (): void => close(signal?.reason instanceof Error ? signal.reason : new Error('the login was cancelled', { cause: signal?.reason }))
  if (signal?.aborted === true) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  result
    .finally(() => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      // Let the success page finish before closing.
      setTimeout(() => {
        server.closeAllConnections()
        server.close()
      }, 50).unref()
    })
    .catch(() => undefined)
  return { redirectUri, result, close: () => close() }
}

/** `5 min`, `90 s`: how long a wait was, as a person reads it. */
function duration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`
}
