// A full garbage collection in another Node process, through its inspector (the process runs with
// --inspect=127.0.0.1:0 and printed "Debugger listening on ws://…" on stderr), so that two RSS
// readings compare memory held, not garbage not yet collected. undici's WebSocket: Node 20 has
// no global one.
import { WebSocket } from 'undici'

const TIMEOUT_MS = 10_000

/** The inspector's WebSocket URL in what a process printed on stderr. */
export const inspectorUrl = (stderr) => /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1]

/** Runs HeapProfiler.collectGarbage in the process whose inspector listens at `url`. */
export function collectGarbage(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const timer = setTimeout(() => {
      socket.close()
      reject(new Error('the inspector did not answer HeapProfiler.collectGarbage'))
    }, TIMEOUT_MS)
    socket.addEventListener('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })))
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data))
      if (message.id !== 1) return
      clearTimeout(timer)
      socket.close()
      if (message.error) reject(new Error(`HeapProfiler.collectGarbage: ${message.error.message}`))
      else resolve()
    })
    socket.addEventListener('error', (event) => {
      clearTimeout(timer)
      reject(new Error(`inspector connection failed: ${event.message ?? 'error'}`))
    })
  })
}
