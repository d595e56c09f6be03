/**
 * `--resource` on `start` and `auth-server` (issue 15): repeatable, each URL a resource the
 * authorization server issues tokens for (audience-bound), beside its own; any other is refused
 * with invalid_target.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'

const FILES = 'http://localhost:4161/mcp'
const NOTES = 'http://localhost:4162/mcp'
const children: ChildProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopChild(child)))
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** A data directory holding a client_credentials client; its credentials. */
async function dataDirWithClient(): Promise<{ dir: string; basic: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-resource-option-'))
  dirs.push(dir)
  const added = await runCli(['clients', 'add', '--name', 'service', '--grant-type', 'client_credentials', '--scope', 'mcp', '--data-dir', dir])
  expect(added.code, added.stderr).toBe(0)
  const clientId = /client_id: (\S+)/.exec(added.stdout)![1]!
  const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!
  return { dir, basic: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` }
}

/** The audience of a client_credentials token for `resource`, or the error. */
async function audienceOf(issuer: string, basic: string, resource: string): Promise<unknown> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource }),
  })
  const body = (await response.json()) as { access_token?: string; error?: string }
  return body.access_token === undefined ? body.error : decodeJwt(body.access_token).aud
}

describe('--resource, given twice', () => {
  it('on start: tokens for both servers and the demo, invalid_target for any other', async () => {
    const { dir, basic } = await dataDirWithClient()
    const started = await startCli(['start', '--port', '0', '--data-dir', dir, '--resource', FILES, '--resource', NOTES], { env: { MCP_AUTH_DEMO_PASSWORD: 'resource option 1' } })
    children.push(started.child)
    for (const resource of [`${started.url}/mcp`, FILES, NOTES]) expect(await audienceOf(started.url, basic, resource)).toBe(resource)
    expect(await audienceOf(started.url, basic, 'http://localhost:4163/mcp')).toBe('invalid_target')
  })

  it('on auth-server: tokens for both servers, invalid_target for any other', async () => {
    const { dir, basic } = await dataDirWithClient()
    const started = await startCli(['auth-server', '--port', '0', '--data-dir', dir, '--resource', FILES, '--resource', NOTES])
    children.push(started.child)
    for (const resource of [FILES, NOTES]) expect(await audienceOf(started.url, basic, resource)).toBe(resource)
    expect(await audienceOf(started.url, basic, 'http://localhost:4163/mcp')).toBe('invalid_target')
  })
})
