/**
 * Issue 28, items 17 and 19: on Node 20 (past its end of life, still working) a server says so once,
 * in one line naming the supported lines, instead of oidc-provider's warning per process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nodeSupportNotice } from '../../src/cli/node-support-notice.js'
import { startCli, stopChild } from '../helpers/cli-process.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('nodeSupportNotice', () => {
  it('names Node 20 past its end of life and the supported lines, 24 recommended', () => {
    expect(nodeSupportNotice({ version: '20.19.0', lts: 'Iron' })).toBe(
      'notice: Node.js 20.19.0 is past its end of life; mcp-auth still runs on it, but the supported lines are Node.js 24 and 22 LTS (24 recommended)',
    )
  })

  it('names a Current (not LTS) release as such', () => {
    expect(nodeSupportNotice({ version: '25.1.0', lts: undefined })).toMatch(/^notice: Node\.js 25\.1\.0 is not an LTS release; the supported lines are Node\.js 24 and 22 LTS/)
  })

  it('says nothing on a supported line', () => {
    expect(nodeSupportNotice({ version: '22.12.0', lts: 'Jod' })).toBeUndefined()
    expect(nodeSupportNotice({ version: '24.1.0', lts: 'Krypton' })).toBeUndefined()
  })
})

describe('mcp-auth auth-server at start-up', () => {
  it("prints the notice once on an unsupported line, and never oidc-provider's own warning", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-node-notice-'))
    dirs.push(dir)
    const started = await startCli(['auth-server', '--data-dir', dir, '--port', '0'])
    await stopChild(started.child)
    const output = started.output()
    expect(output).not.toMatch(/oidc-provider WARNING|Unsupported runtime/)
    const notices = output.split('\n').filter((line) => line.includes('notice: Node.js'))
    expect(notices).toEqual(nodeSupportNotice() === undefined ? [] : [`mcp-auth auth-server: ${nodeSupportNotice()}`])
  })
})
