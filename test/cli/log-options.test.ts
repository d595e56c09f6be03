// Issue 33 (logs): the serving commands log to stderr or a file, never stdout, at the level asked.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, stopChild } from '../helpers/cli-process.js'
import { CLI_PATH } from '../helpers/paths.js'

interface Served {
  child: ChildProcess
  origin: string
  stdout: () => string
  stderr: () => string
}

const children: ChildProcess[] = []
const dirs: string[] = []

/** Starts `mcp-auth <args>`, stdout and stderr apart, once it prints its `listening on` line. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /listening on (\S+)/.exec(stdout)
      if (match !== null) resolve({ child, origin: new URL(match[1]!).origin, stdout: () => stdout, stderr: () => stderr })
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${stderr}`)))
  })
}

/** The JSON lines of a log. */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000
  let value = await read()
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    value = await read()
  }
  return value
}

afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)))
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('the log options of the serving commands', () => {
  it('start logs JSON lines to stderr off a terminal, an access line per request, and nothing but the banner on stdout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-log-'))
    dirs.push(dir)
    const served = await serve(['start', '--port', '0', '--data-dir', join(dir, 'data'), '--log-level', 'info'], { MCP_AUTH_DEMO_PASSWORD: 'Pw-log-options-1' })
    const answer = await fetch(`${served.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(answer.status).toBe(401)
    await fetch(`${served.origin}/.well-known/oauth-authorization-server`)
    const lines = await until(
      () => jsonLines(served.stderr()).filter((line) => line['msg'] === 'request'),
      (found) => found.some((line) => line['route'] === '/.well-known/oauth-authorization-server'),
    )
    expect(lines.find((line) => line['route'] === '/mcp')).toMatchObject({
      level: 'info',
      method: 'POST',
      status: 401,
      address_group: '127.0.0.1',
      request_id: answer.headers.get('x-request-id'),
    })
    expect(lines.find((line) => line['route'] === '/.well-known/oauth-authorization-server')).toMatchObject({ status: 200 })
    // stdout: the listening line and the banner, no log line
    expect(served.stdout()).toMatch(/^listening on /)
    expect(served.stdout()).not.toMatch(/^\{/m)
    expect(served.stdout()).not.toContain('"msg"')
  })

  it('writes the log to --log-file, created 0600, and not to stderr', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-log-'))
    dirs.push(dir)
    const file = join(dir, 'logs', 'mcp-auth.log')
    const served = await serve(['demo-server', '--port', '0', '--log-level', 'info', '--log-file', file])
    await (
      await fetch(`${served.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
    ).text()
    const lines = await until(
      async () => jsonLines(await readFile(file, 'utf8').catch(() => '')),
      (found) => found.some((line) => line['msg'] === 'request'),
    )
    expect(lines.find((line) => line['msg'] === 'request')).toMatchObject({ route: '/mcp', method: 'POST' })
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(jsonLines(served.stderr())).toEqual([])
  })

  it('takes its level from MCP_AUTH_LOG_LEVEL, --log-level first; --no-access-log leaves the access lines out', async () => {
    const byEnv = await serve(['demo-server', '--port', '0'], { MCP_AUTH_LOG_LEVEL: 'info' })
    const byOption = await serve(['demo-server', '--port', '0', '--log-level', 'warn'], { MCP_AUTH_LOG_LEVEL: 'info' })
    const noAccess = await serve(['demo-server', '--port', '0', '--no-access-log'], { MCP_AUTH_LOG_LEVEL: 'info' })
    for (const served of [byEnv, byOption, noAccess]) await (await fetch(`${served.origin}/rest`)).text()
    await until(
      () => jsonLines(byEnv.stderr()),
      (found) => found.length > 0,
    )
    // the other two had as long to write theirs
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(jsonLines(byEnv.stderr()).filter((line) => line['msg'] === 'request')).toHaveLength(1)
    expect(jsonLines(byOption.stderr())).toEqual([])
    expect(jsonLines(noAccess.stderr())).toEqual([])
  })

  it('writes the health check at debug, with its id in the answer', async () => {
    const served = await serve(['demo-server', '--port', '0', '--log-level', 'debug'])
    const health = await fetch(`${served.origin}/healthz`)
    expect(health.status).toBe(200)
    const lines = await until(
      () => jsonLines(served.stderr()).filter((line) => line['route'] === '/healthz'),
      (found) => found.length > 0,
    )
    expect(lines).toMatchObject([{ level: 'debug', msg: 'request', method: 'GET', status: 200, request_id: health.headers.get('x-request-id') }])
  })

  it('refuses a level or a format it does not know, with the usage', async () => {
    const level = await runCli(['demo-server', '--port', '0', '--log-level', 'loud'])
    expect(level.code).toBe(2)
    expect(level.stderr).toMatch(/--log-level must be one of trace, debug, info, warn, error, fatal, silent, got loud/)
    const format = await runCli(['demo-server', '--port', '0', '--log-format', 'xml'])
    expect(format.code).toBe(2)
    expect(format.stderr).toMatch(/--log-format must be json or pretty, got xml/)
  })
})
