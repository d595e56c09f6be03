// The memory part of bench/gateway.mjs: our gateway's RSS with no session, then with N idle
// stateful sessions open (each with its own child): RSS per child (the children's RSS, summed over
// each child and anything it started, / the number of children) and per idle session (the
// gateway's own growth / N). One measurement on a fresh gateway: memory does not move like
// throughput does.
import { setTimeout as delay } from 'node:timers/promises'
import { childrenOf, descendantsOf, rssOf, startGateway } from './processes.mjs'
import { openSession } from './http-session.mjs'

export const SETTLE_MS = 2_000
export const OPEN_AT_ONCE = 5
const CAP_MARGIN = 2

export async function measureMemory({ cli, command, core, sessions }) {
  // one token opens every session: the per-principal cap (a few children) is raised to hold them all
  const cap = String(sessions + CAP_MARGIN)
  const gateway = await startGateway({ cli, command, core, options: ['--max-children', cap, '--max-children-per-client', cap] })
  try {
    const auth = { Authorization: `Bearer ${gateway.token}` }
    await delay(SETTLE_MS)
    const idle = await rssOf(gateway.child.pid)
    const childrenAtStart = childrenOf(gateway.child.pid).length
    let opened = 0
    let refused
    // a few at a time: each session starts a child, and the gateway may cap how many start at once
    for (let i = 0; i < sessions && refused === undefined; i += OPEN_AT_ONCE) {
      const batch = Array.from({ length: Math.min(OPEN_AT_ONCE, sessions - i) }, () => openSession(gateway.url, auth))
      for (const result of await Promise.allSettled(batch)) {
        if (result.status === 'fulfilled') opened++
        else refused ??= result.reason.message
      }
    }
    await delay(SETTLE_MS)
    const withSessions = await rssOf(gateway.child.pid)
    const children = childrenOf(gateway.child.pid)
    let childrenRss = 0
    for (const pid of children) {
      childrenRss += await rssOf(pid)
      for (const below of descendantsOf(pid)) childrenRss += await rssOf(below)
    }
    const r = {
      idle,
      withSessions,
      opened,
      refused,
      childrenAtStart,
      children: children.length,
      perChild: children.length ? childrenRss / children.length : undefined,
      perSession: opened ? (withSessions - idle) / opened : undefined,
    }
    console.error(
      `memory: gateway RSS ${mib(idle)} MiB with no session, ${mib(withSessions)} MiB with ${opened} idle sessions; ${children.length} children, ${r.perChild === undefined ? 'n/a' : mib(r.perChild)} MiB each${refused ? `; refused after ${opened}: ${refused}` : ''}`,
    )
    return r
  } finally {
    await gateway.stop()
  }
}

export const mib = (kib) => (kib / 1024).toFixed(1)
