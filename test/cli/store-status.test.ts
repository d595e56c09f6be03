// Issue 30 ("the operator can see it"): mcp-auth status from the running server (its server file
// and the keyed /healthz), else from the files read-only; the health endpoint tells a caller
// without the key nothing about the store.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'

const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child, 'SIGKILL')))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function seededDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-status-'))
  dirs.push(dir)
  expect((await runCli(['users', 'add', 'carol', '--data-dir', dir], { env: { MCP_AUTH_PASSWORD: 'carol password 1' } })).code).toBe(0)
  expect((await runCli(['clients', 'add', '--name', 'Batch job', '--data-dir', dir])).code).toBe(0)
  return dir
}

interface StatusJson {
  source: 'server' | 'files'
  server: { running: boolean; pid?: number; url?: string }
  models: Record<string, number>
  collections: Record<string, number>
  snapshotBytes: number
  journalBytes: number
  generation: number
}

async function statusJson(dir: string): Promise<StatusJson> {
  const result = await runCli(['status', '--data-dir', dir, '--json'])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as StatusJson
}

describe('mcp-auth status', () => {
  it('reads a stopped store from its files: counts per kind, sizes, generation', async () => {
    const dir = await seededDataDir()
    const status = await statusJson(dir)
    expect(status.source).toBe('files')
    expect(status.server).toEqual({ running: false })
    expect(status.models['Client']).toBe(1)
    expect(status.collections['accounts']).toBe(1)
    expect(status.snapshotBytes).toBeGreaterThan(0)
    expect(status.journalBytes).toBeGreaterThan(0)
    expect(status.generation).toBeGreaterThanOrEqual(1)
    const text = await runCli(['status', '--data-dir', dir])
    expect(text.stdout).toMatch(/^server: +not running; read from the files$/m)
    expect(text.stdout).toMatch(/^records: +Client 1$/m)
    expect(text.stdout).toMatch(/^journal: +[\d.]+ (B|kB)$/m)
  })

  it('asks the running server with the key of its 0600 server file, which is gone after SIGTERM', async () => {
    const dir = await seededDataDir()
    const fromFiles = await statusJson(dir)
    const { child, url } = await startCli(['auth-server', '--port', '0', '--data-dir', dir, '--drain-delay', '0'])
    children.push(child)
    const serverFile = join(dir, 'mcp-auth.server.json')
    expect((await stat(serverFile)).mode & 0o777).toBe(0o600)

    const status = await statusJson(dir)
    expect(status.source).toBe('server')
    expect(status.server).toMatchObject({ running: true, pid: child.pid, url })
    expect(status.models['Client']).toBe(fromFiles.models['Client'])
    expect(status.collections['accounts']).toBe(fromFiles.collections['accounts'])
    const text = await runCli(['status', '--data-dir', dir])
    expect(text.stdout).toMatch(new RegExp(`^server: +running \\(pid ${child.pid}, ${url}`, 'm'))

    // a load balancer's check, and a caller with a wrong key, learn nothing about the store
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' })
    expect(await (await fetch(`${url}/healthz`, { headers: { 'x-mcp-auth-status-key': 'not the key' } })).json()).toEqual({ status: 'ok' })

    await stopChild(child)
    await expect(stat(serverFile)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('asks mcp-auth start too, at a loopback URL of it', async () => {
    const dir = await seededDataDir()
    const { child, url } = await startCli(['start', '--port', '0', '--data-dir', dir, '--drain-delay', '0'], { env: { MCP_AUTH_DEMO_PASSWORD: 'demo password 1' } })
    children.push(child)
    const status = await statusJson(dir)
    expect(status.source).toBe('server')
    expect(status.server).toMatchObject({ running: true, pid: child.pid, url: `http://127.0.0.1:${new URL(url).port}` })
    // the demo account start created is counted
    expect(status.collections['accounts']).toBe(2)
    await stopChild(child)
    await expect(stat(join(dir, 'mcp-auth.server.json'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('falls back to the files when the server file names a process that is gone', async () => {
    const dir = await seededDataDir()
    // a pid no process has: past the kernel's pid_max (4194304 at most)
    await writeFile(join(dir, 'mcp-auth.server.json'), JSON.stringify({ pid: 4_194_305, url: 'http://127.0.0.1:9', key: 'stale' }), { mode: 0o600 })
    const status = await statusJson(dir)
    expect(status.source).toBe('files')
    expect(status.server.running).toBe(false)
    expect(status.models['Client']).toBe(1)
    const text = await runCli(['status', '--data-dir', dir])
    expect(text.stdout).toMatch(/^note: +mcp-auth\.server\.json names pid 4194305, which is not running/m)
  })

  it('says where the records are when the data directory belongs to a node on Redis', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-status-'))
    dirs.push(dir)
    await writeFile(join(dir, 'redis-store.json'), JSON.stringify({ url: 'redis://redis.internal:6379', prefix: 'mcp-auth:' }), { mode: 0o600 })
    const result = await runCli(['status', '--data-dir', dir])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('the records are in Redis (redis://redis.internal:6379, prefix mcp-auth:)')
    const backup = await runCli(['backup', '--data-dir', dir, '--out', join(dir, 'copy')])
    expect(backup.code).toBe(1)
    expect(backup.stderr).toMatch(/^mcp-auth backup: the records are in Redis .*BGSAVE.*AOF.*\n$/)
  })

  it('refuses a directory without a store in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-status-'))
    dirs.push(dir)
    const result = await runCli(['status', '--data-dir', join(dir, 'nothing')])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^mcp-auth status: .*holds no embedded store.*\n$/)
  })
})
