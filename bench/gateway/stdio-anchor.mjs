// Anchor A's turn in a round of bench/gateway.mjs: runs bench/gateway/stdio-load.mjs pinned to
// the load core (it pins the server to the server core) and reads its RESULT line.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { pin, pinned, track } from '../harness.mjs'

const LOAD = fileURLToPath(new URL('./stdio-load.mjs', import.meta.url))
const GRACE_S = 20

/** calls/s of `command` over its own stdio with `inFlight` tools/call (`body`) in flight; as wrk results keyed by mode. */
export function measureStdio({ command, body, seconds, warmup, inFlight, serverCore, loadCore, round }) {
  const args = [
    LOAD,
    '--seconds',
    String(seconds),
    '--warmup',
    String(warmup),
    '--in-flight',
    String(inFlight),
    '--body',
    body,
    ...(pin ? ['--core', serverCore] : []),
    '--',
    ...command,
  ]
  return new Promise((resolve, reject) => {
    const child = track(spawn(...pinned(loadCore, process.execPath, args), { stdio: ['ignore', 'pipe', 'pipe'] }))
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + warmup + GRACE_S) * 1000)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const line = /^RESULT (.*)$/m.exec(out)
      if (!line) return reject(new Error(`the stdio load ended (${signal ?? code}) without a result:\n${out}`))
      const { calls, seconds: elapsed, errors, check } = JSON.parse(line[1])
      if (check?.content?.[0]?.text !== 'Echo: hi') return reject(new Error(`the stdio check call answered ${JSON.stringify(check)}`))
      const r = { rps: calls / elapsed, p50: 0, p99: 0, failed: errors, non2xx: errors, socketErrors: 0 }
      console.error(`round ${round} stdio alone, ${inFlight} in flight: ${r.rps.toFixed(0)} calls/s${errors ? `, FAILED: ${errors} errors` : ''}`)
      resolve({ [String(inFlight)]: r })
    })
  })
}
