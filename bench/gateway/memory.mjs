// The memory part of bench/gateway.mjs: our gateway's RSS with no session, then with N idle
// stateful sessions open (each with its own child): RSS per child (the children's RSS, summed over
// each child and anything it started, / the number of children) and per idle session (the
// gateway's own growth / the sessions it holds). Each gateway reading follows a full GC (through
// its inspector), so it compares memory held, not garbage. The sessions are spread over several
// principals, at most the gateway's default children per principal each, so the gateway runs
// with its default caps. One measurement on a fresh gateway: memory does not move like throughput.
import { setTimeout as delay } from 'node:timers/promises'
import { collectGarbage, inspectorUrl } from './collect-garbage.mjs'
import { openSession } from './http-session.mjs'
import { childrenOf, descendantsOf, rssOf, startGateway } from './processes.mjs'

export const SETTLE_MS = 2_000
/** Sessions per principal: the gateway's default cap of children per principal. */
export const SESSIONS_PER_PRINCIPAL = 4
const CAP_MARGIN = 2

/** VmRSS of the gateway after a full GC and a moment to give memory back. */
async function settledRss(pid, inspector) {
  await collectGarbage(inspector)
  await delay(SETTLE_MS)
  return rssOf(pid)
}

export async function measureMemory({ cli, command, core, sessions }) {
  const principals = Math.ceil(sessions / SESSIONS_PER_PRINCIPAL)
  // the overall cap (64 by default) only when more sessions than that are asked for
  const options = sessions + CAP_MARGIN > 64 ? ['--max-children', String(sessions + CAP_MARGIN)] : []
  const gateway = await startGateway({ cli, command, core, options, clients: principals, node: ['--inspect=127.0.0.1:0'] })
  try {
    const inspector = inspectorUrl(gateway.stderrHead())
    if (!inspector) throw new Error(`no inspector URL on the gateway's stderr: ${gateway.stderrHead().slice(0, 200)}`)
    const pid = gateway.child.pid
    const idle = await settledRss(pid, inspector)
    let opened = 0
    let refused
    for (let p = 0; p < principals; p++) {
      const auth = { Authorization: `Bearer ${gateway.tokens[p]}` }
      const count = Math.min(SESSIONS_PER_PRINCIPAL, sessions - p * SESSIONS_PER_PRINCIPAL)
      for (const result of await Promise.allSettled(Array.from({ length: count }, () => openSession(gateway.url, auth)))) {
        if (result.status === 'fulfilled') opened++
        else refused ??= result.reason.message
      }
    }
    const withSessions = await settledRss(pid, inspector)
    const children = childrenOf(pid)
    let childrenRss = 0
    for (const child of children) {
      childrenRss += await rssOf(child)
      for (const below of descendantsOf(child)) childrenRss += await rssOf(below)
    }
    const r = {
      idle,
      withSessions,
      principals,
      opened,
      refused,
      children: children.length,
      perChild: children.length ? childrenRss / children.length : undefined,
      perSession: opened ? (withSessions - idle) / opened : undefined,
    }
    console.error(
      `memory: gateway RSS ${mib(idle)} MiB with no session, ${mib(withSessions)} MiB with ${opened} idle sessions of ${principals} principals; ${children.length} children, ${r.perChild === undefined ? 'n/a' : mib(r.perChild)} MiB each${refused ? `; refused: ${refused}` : ''}`,
    )
    return r
  } finally {
    await gateway.stop()
  }
}

export const mib = (kib) => (kib / 1024).toFixed(1)
