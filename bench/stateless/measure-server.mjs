// One server's turn in a round of the 2026-07-28 throughput benchmarks: start it fresh (core 1),
// check it with `prepare` (which also gives the headers wrk adds, e.g. Authorization), warm it up,
// then load it with wrk in every mode, each with the server moved to that mode's core, recording
// req/s, latency, the server's CPU per answered request and how busy the rest of the machine was.
import { cpuPerRequest, logMeasurement, pinProcess, runWrk, startServer, ticksOf } from '../harness.mjs'
import { startLoadMeter } from '../load-meter.mjs'
import { CALL_BODY, CALL_HEADERS } from './request.mjs'

const START_TIMEOUT_MS = 10_000
export const WARMUP = { connections: 10, seconds: 5 }

/** A `measure(server, round)` for runRounds: `server.args` start it, `prepare(server, url)` checks it. */
export function measureServer({ modes, seconds, prepare }) {
  return async function measure(server, round) {
    const { child, url: origin } = await startServer(server.args, START_TIMEOUT_MS)
    try {
      const url = new URL('/mcp', origin).href
      const headers = { ...CALL_HEADERS, ...(await prepare(server, url)) }
      const wrk = (connections, duration, core) => runWrk({ url, connections, seconds: duration, core, headers, body: CALL_BODY })
      pinProcess(child, '1')
      await wrk(WARMUP.connections, WARMUP.seconds, '0')
      const byMode = {}
      for (const mode of modes) {
        pinProcess(child, mode.serverCore)
        const [meter, before] = await Promise.all([startLoadMeter(child.pid), ticksOf(child.pid)])
        const r = await wrk(mode.connections, seconds, mode.wrkCore)
        const [load, after] = await Promise.all([meter.stop(seconds), ticksOf(child.pid)])
        Object.assign(r, load, { cpuUs: cpuPerRequest(before, after, r.rps * seconds) })
        logMeasurement(round, server, mode, r)
        byMode[mode.key] = r
      }
      return byMode
    } finally {
      child.kill('SIGKILL')
    }
  }
}

/** The busiest other-process and steal shares of any measurement in `runs`, for the load note. */
export function busiest(runs) {
  const cells = Object.values(runs).flatMap((list) => list.flatMap((byMode) => Object.values(byMode)))
  return { others: Math.max(0, ...cells.map((r) => r.others ?? 0)), steal: Math.max(0, ...cells.map((r) => r.steal ?? 0)) }
}

/** The load line for a section: how busy the machine was around the measurements. */
export function loadNote({ others, steal }) {
  const line = `Other processes used up to ${(others * 100).toFixed(0)}% of a core during a measurement (hypervisor steal up to ${(steal * 100).toFixed(0)}%)`
  return others > 0.25 || steal > 0.1 ? `**${line}: the machine was not quiet, single figures are disturbed; the interleaved rounds and ratios are what count.**` : `${line}.`
}
