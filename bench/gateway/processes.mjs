// The processes bench/gateway.mjs measures: supergateway and our gateway, each in a process group
// of its own (both start stdio children, and a child must never outlive the run), pinned to the
// server core with everything they start; and the memory figures read from /proc.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clientCredentialsRequest, fetchJson, pinned } from '../harness.mjs'
import { listening } from '../local-servers.mjs'

const START_TIMEOUT_MS = 15_000
const STOP_TIMEOUT_MS = 5_000
const STDERR_KEPT = 2_000

const groups = new Set()
const killGroup = (pid) => {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
process.on('exit', () => {
  for (const pid of groups) killGroup(pid)
})

/** Spawns `command args…` pinned to `core` as the leader of a new process group; `stop()` ends the group. */
function spawnGroup(core, command, args, stdout = 'ignore') {
  const child = spawn(...pinned(core, command, args), { stdio: ['ignore', stdout, 'pipe'], detached: true })
  groups.add(child.pid)
  // kept (the last few KiB) for an error message; always read, so a chatty server never blocks on it
  let stderr = ''
  let head = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    if (head.length < STDERR_KEPT) head = (head + chunk).slice(0, STDERR_KEPT)
    stderr = (stderr + chunk).slice(-STDERR_KEPT)
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    child,
    /** The last and the first few KiB the process wrote on stderr. */
    stderr: () => stderr.trim(),
    stderrHead: () => head,
    /** SIGTERM to the leader (a gateway drains and ends its children), then SIGKILL to the whole group. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))])
      }
      killGroup(child.pid)
      groups.delete(child.pid)
    },
  }
}

/** A TCP port nothing listens on now (for servers that take no --port 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function waitUntil(ready, { child, stderr }, what) {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) at start: ${stderr()}`)
    if (Date.now() > deadline) throw new Error(`${what} did not listen within ${START_TIMEOUT_MS / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * supergateway 4.0 in front of `command` (a shell command line, as its --stdio takes it), stdio →
 * Streamable HTTP: `--stateful` keeps one child per session; without it, every request spawns a
 * child, initializes it and ends it. `--logLevel none`: the anchor at its fastest.
 */
export async function startSupergateway({ bin, command, stateful, core }) {
  const port = await freePort()
  const args = ['--stdio', command, '--outputTransport', 'streamableHttp', '--port', String(port), '--logLevel', 'none', ...(stateful ? ['--stateful'] : [])]
  const group = spawnGroup(core, bin, args)
  await waitUntil(listening(port), group, 'supergateway')
  return { ...group, url: `http://127.0.0.1:${port}/mcp` }
}

/** Adds a confidential client (client_credentials) to the store in `dataDir`: its id and secret. */
function addClient(cli, dataDir, name) {
  const added = spawnSync(process.execPath, [cli, 'clients', 'add', '--name', name, '--grant-type', 'client_credentials', '--data-dir', dataDir], { encoding: 'utf8' })
  const id = /^client_id: (\S+)/m.exec(added.stdout)?.[1]
  const secret = /^client_secret: (\S+)/m.exec(added.stdout)?.[1]
  if (added.status !== 0 || !id || !secret) throw new Error(`mcp-auth clients add failed: ${added.stderr || added.stdout}`)
  return { id, secret }
}

/** The client_credentials access token of `client` for <origin>/mcp, scope mcp. */
async function tokenFor(origin, client) {
  const request = clientCredentialsRequest(origin, client.id, client.secret)
  const token = await fetchJson(new URL('/token', origin), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', Authorization: request.authorization },
    body: request.body,
  })
  if (token.status !== 200 || typeof token.body?.access_token !== 'string') throw new Error(`token request answered ${token.status}: ${token.text.slice(0, 200)}`)
  return token.body.access_token
}

/** Resolves with the URL a starting server prints as "listening on <url>". */
function listeningUrl(group) {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`mcp-auth gateway did not print "listening on <url>" within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    group.child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (!match) return
      clearTimeout(timer)
      group.child.stdout.resume()
      resolve(match[1])
    })
    group.child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`mcp-auth gateway exited (${code}) before listening: ${group.stderr() || out.slice(0, 300)}`))
    })
  })
}

/**
 * Our gateway (`mcp-auth gateway --port 0 --data-dir DIR [options] -- command…`) with `clients`
 * confidential clients added to its store beforehand (`mcp-auth clients add`, client_credentials:
 * each a principal of its own), and their access tokens for <origin>/mcp with scope mcp (`tokens`;
 * `token` is the first). `node` flags go before the CLI (e.g. --inspect).
 */
export async function startGateway({ cli, command, core, options = [], clients = 1, node = [] }) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-bench-gateway-'))
  let group
  const stop = async () => {
    await group?.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
  try {
    const added = Array.from({ length: clients }, (_, i) => addClient(cli, dataDir, `bench-gateway-${i + 1}`))
    group = spawnGroup(core, process.execPath, [...node, cli, 'gateway', '--port', '0', '--data-dir', dataDir, ...options, '--', ...command], 'pipe')
    const origin = await listeningUrl(group)
    const tokens = []
    for (const client of added) tokens.push(await tokenFor(origin, client))
    return { ...group, stop, url: new URL('/mcp', origin).href, token: tokens[0], tokens }
  } catch (error) {
    await stop()
    throw error
  }
}

/** VmRSS of a process in KiB (0 once it is gone). */
export async function rssOf(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** The direct children of `pid` (pgrep -P). */
export function childrenOf(pid) {
  const found = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
  return found.stdout.split('\n').filter(Boolean).map(Number)
}

/** Every process below `pid`, children first. */
export function descendantsOf(pid) {
  const direct = childrenOf(pid)
  return [...direct, ...direct.flatMap(descendantsOf)]
}
