// How busy the rest of the machine was while a benchmark measured: the CPU time every process
// used (/proc/stat, so processes that started and ended in the window count too), minus the
// server's and this process's own (its reaped children, wrk among them, included). Linux only;
// elsewhere the share is undefined. Steal (time the hypervisor gave to other guests) is reported
// beside it: on a shared VM it disturbs figures just as much.
import { readFile } from 'node:fs/promises'
import { CLOCK_TICKS, ticksOf } from './harness.mjs'

async function machineTicks() {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const [, user, nice, system, , , irq, softirq, steal] = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).map(Number)
  return { busy: user + nice + system + irq + softirq, steal }
}

async function ownTicks() {
  // utime, stime, cutime, cstime: the 12th to 15th fields after the command name
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1].split(' ')
  return fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0)
}

async function reading(serverPid) {
  try {
    const [machine, own, server] = await Promise.all([machineTicks(), ownTicks(), ticksOf(serverPid)])
    return server === undefined ? undefined : { ...machine, own, server }
  } catch {
    return undefined
  }
}

/**
 * Starts a meter for a measurement against `serverPid`; `stop(seconds)` resolves with the share
 * of one core other processes used (`others`) and the steal share, both undefined when unknown.
 */
export async function startLoadMeter(serverPid) {
  const before = await reading(serverPid)
  return {
    async stop(seconds) {
      const after = await reading(serverPid)
      if (!before || !after) return { others: undefined, steal: undefined }
      const used = after.busy - before.busy - (after.server - before.server) - (after.own - before.own)
      return { others: Math.max(0, used) / CLOCK_TICKS / seconds, steal: (after.steal - before.steal) / CLOCK_TICKS / seconds }
    },
  }
}
