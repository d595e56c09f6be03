// Issue 30 (acceptance): a backup taken during a burst of writes restores to a store that holds
// every write acknowledged before the backup began; restore refuses what it must.
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { storeContents } from '../helpers/store-contents.js'

const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child, 'SIGKILL')))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-backup-'))
  dirs.push(dir)
  return dir
}

interface Registered {
  client_id: string
  registration_access_token: string
}

describe('mcp-auth backup and restore', () => {
  it('restores, from a backup taken during a burst of registrations, every client registered before it began', async () => {
    const root = await tempDir()
    const dataDir = join(root, 'data')
    const config = join(root, 'burst.json')
    // the burst must not be cut short by the registration rate limit, nor by the unused-registration caps
    await writeFile(config, JSON.stringify({ rateLimits: { registrationPerAddress: 1_000_000 }, registration: { maxUnusedPerAddress: 1_000_000, maxUnused: 1_000_000 } }))
    const server = await startCli(['auth-server', '--port', '0', '--data-dir', dataDir, '--config', config, '--drain-delay', '0'])
    children.push(server.child)

    const acknowledged: Registered[] = []
    let stop = false
    const burst = async (): Promise<void> => {
      while (!stop) {
        const response = await fetch(`${server.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
        })
        if (response.status === 201) acknowledged.push((await response.json()) as Registered)
        else throw new Error(`registration answered ${response.status}: ${await response.text()}`)
      }
    }
    const workers = Array.from({ length: 6 }, burst)
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20))

    // every 201 that arrived before the backup starts must be in it
    const before = acknowledged.slice()
    const backupDir = join(root, 'backup')
    const backup = await runCli(['backup', '--data-dir', dataDir, '--out', backupDir])
    const duringBackup = acknowledged.length - before.length
    stop = true
    await Promise.all(workers)
    expect(backup.code, backup.stderr).toBe(0)
    expect(duringBackup).toBeGreaterThan(0)
    expect(backup.stdout).toContain(`mcp-auth restore --from ${backupDir} --data-dir ${dataDir}`)
    for (const name of ['mcp-auth.json', 'mcp-auth.snapshot', 'secrets.json', 'jwks.json']) expect((await stat(join(backupDir, name))).mode & 0o777).toBe(0o600)
    expect((await stat(backupDir)).mode & 0o777).toBe(0o700)

    // restore refuses the directory a server runs on, and a directory that is no backup
    const busy = await runCli(['restore', '--from', backupDir, '--data-dir', dataDir])
    expect(busy.code).toBe(1)
    expect(busy.stderr).toMatch(/^mcp-auth restore: .*in use by process \d+.*\n$/)
    const notBackup = await runCli(['restore', '--from', join(root, 'nothing'), '--data-dir', join(root, 'elsewhere')])
    expect(notBackup.code).toBe(1)
    expect(notBackup.stderr).toMatch(/^mcp-auth restore: .*holds no backup.*\n$/)

    const restoredDir = join(root, 'restored')
    const restored = await runCli(['restore', '--from', backupDir, '--data-dir', restoredDir])
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.stdout).toMatch(/^ {2}records: .*Client \d+/m)
    expect(restored.stdout).toContain(`mcp-auth start --data-dir ${restoredDir}`)
    const clients = (await storeContents(restoredDir)).models['Client'] ?? {}
    expect(before.filter(({ client_id }) => !(client_id in clients))).toEqual([])

    // and again into the same directory: it holds a store now
    const again = await runCli(['restore', '--from', backupDir, '--data-dir', restoredDir])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/^mcp-auth restore: .*holds a store already.*\n$/)

    // a server on the restored directory knows a client registered before the backup began
    await stopChild(server.child)
    const restoredServer = await startCli(['auth-server', '--port', '0', '--data-dir', restoredDir, '--drain-delay', '0'])
    children.push(restoredServer.child)
    const client = before[0]!
    const read = await fetch(`${restoredServer.url}/register/${client.client_id}`, { headers: { authorization: `Bearer ${client.registration_access_token}` } })
    expect(read.status).toBe(200)
    expect(((await read.json()) as { client_id: string }).client_id).toBe(client.client_id)
  }, 60_000)

  it('refuses a damaged backup with the file and line, and restores nothing', async () => {
    const root = await tempDir()
    const dataDir = join(root, 'data')
    expect((await runCli(['users', 'add', 'bob', '--data-dir', dataDir], { env: { MCP_AUTH_PASSWORD: 'bob password 1' } })).code).toBe(0)
    const backupDir = join(root, 'backup')
    expect((await runCli(['backup', '--data-dir', dataDir, '--out', backupDir])).code).toBe(0)
    const journal = join(backupDir, 'mcp-auth.journal.1')
    await writeFile(journal, (await readFile(journal, 'utf8')).replace('"bob"', '"bib"'))
    const restored = await runCli(['restore', '--from', backupDir, '--data-dir', join(root, 'restored')])
    expect(restored.code).toBe(1)
    expect(restored.stderr).toMatch(/^mcp-auth restore: .* is not a whole backup: .*mcp-auth\.journal\.1 line \d+ is damaged .*nothing was restored\n$/)
    await expect(stat(join(root, 'restored', 'mcp-auth.json'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
