/**
 * `createMainJob` (what `mcp-auth start` runs) hands the configuration's branding to the home page
 * as the authorization server's pages get it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMainJob, type MainJob } from '../../src/app/main-job.js'
import { listenOnLoopback } from '../helpers/listen.js'

let dir: string
let job: MainJob
let origin: string
let close: () => Promise<void>

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-main-job-branding-'))
  // the origin is the listening one: bind first on a port the job learns through a late handler
  let handler: MainJob['handler'] | undefined
  const listening = await listenOnLoopback((req, res) => handler!(req, res))
  origin = listening.url
  job = await createMainJob({
    origin,
    dataDir: dir,
    demoPassword: 'branding password 1',
    config: { branding: { productName: 'Acme Tools Gateway', colors: { primary: '#0a7d3b' } } },
  })
  handler = job.handler
  close = async () => {
    await listening.close()
    await job.close()
  }
})
afterAll(async () => {
  await close?.()
  await rm(dir, { recursive: true, force: true })
})

describe('the main job passes the operator branding on', () => {
  it('the home page carries the configured product name and colour', async () => {
    const html = await (await fetch(`${origin}/`)).text()
    expect(html).toContain('Acme Tools Gateway')
    expect(html).toContain('#0a7d3b')
    expect(html).toMatch(/<title>[^<]*Acme Tools Gateway[^<]*<\/title>/)
  })
})
