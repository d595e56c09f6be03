import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { startCli, stopChild } from '../helpers/cli-process.js'
import { freePort } from '../helpers/free-port.js'

const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child, 'SIGKILL')))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Waits until the process's output matches. */
async function outputMatching(output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let i = 0; i < 100; i++) {
    const match = pattern.exec(output())
    if (match !== null) return match
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no ${pattern} in:\n${output()}`)
}

describe('the first administrator notice of mcp-auth auth-server', () => {
  it('prints a one-time setup link after the listening line, once per store, and nothing once an administrator exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-first-admin-'))
    dirs.push(dir)
    const port = await freePort()
    const args = ['auth-server', '--data-dir', dir, '--port', String(port), '--issuer', `http://127.0.0.1:${port}`]
    const first = await startCli(args)
    children.push(first.child)
    const link = (await outputMatching(first.output, /setup link \(until [^)]+\): (http:\/\/127\.0\.0\.1:\d+\/admin\/setup\/[A-Za-z0-9_-]{43})/))[1]!
    expect(first.output().indexOf('listening on')).toBeLessThan(first.output().indexOf('no administrator yet'))
    expect(first.output()).toContain(`mcp-auth users add NAME --admin --data-dir ${dir}`)
    expect((await fetch(link)).status).toBe(200)
    await stopChild(first.child)

    // the link is still valid: a second start says when it was printed, and prints no new one
    const second = await startCli(args)
    children.push(second.child)
    await outputMatching(second.output, /setup link printed at \d{4}-\d\d-\d\dT/)
    expect(second.output()).not.toContain('/admin/setup/')
    const page = await (await fetch(link)).text()
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!
    const created = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${port}` },
      body: new URLSearchParams({ csrf, username: 'ada', password: 'ada password 1', confirm: 'ada password 1' }),
    })
    expect(await created.text()).toContain('id="admin-created"')
    await stopChild(second.child)

    const third = await startCli(args)
    children.push(third.child)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(third.output()).not.toContain('no administrator yet')
  })
})
