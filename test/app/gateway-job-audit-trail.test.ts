// Issue 33: a gateway in front of another authorization server runs none of ours to keep the
// trail: its own events go to audit.jsonl in its data directory.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGatewayJob } from '../../src/app/gateway-job.js'
import { FileAuditTrail } from '../../src/observe/file-audit-trail.js'
import { Observer } from '../../src/observe/observer.js'
import { startAuthServer, type RunningAuthServer } from '../helpers/auth-server.js'
import { TEST_SERVER } from '../helpers/paths.js'

let dir: string
let other: RunningAuthServer
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-trail-'))
  other = await startAuthServer({ dataDir: join(dir, 'other') })
})
afterAll(async () => {
  await other?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe('createGatewayJob with authServer', () => {
  it("keeps the gateway's events in its own data directory", async () => {
    const observer = new Observer({ node: 'gateway-1' })
    const dataDir = join(dir, 'gateway')
    const job = await createGatewayJob({ origin: 'http://127.0.0.1:1', dataDir, child: { command: process.execPath, args: [TEST_SERVER] }, authServer: other.issuer, observer })
    try {
      expect(observer.trail).toBeInstanceOf(FileAuditTrail)
      observer.audit({ type: 'gateway.child-started', result: 'success', subject: 'sub-1', details: { server: 'test' } })
    } finally {
      await job.close()
    }
    const lines = (await readFile(join(dataDir, 'audit.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ type: 'gateway.child-started', node: 'gateway-1', subject: 'sub-1' })])
  })
})
