/**
 * Issue 28, item 1, against `mcp-auth start` (real processes, logins through the pages in
 * Chromium): its resource metadata lists DPoP, so the CLI's tokens are bound by default;
 * `--no-dpop` gives Bearer ones; `mcp-auth token` prints a Bearer token of its own, kept beside the
 * bound one, and the docs' curl command works as written; against `start --require-dpop` it refuses,
 * saying which commands carry the proof.
 */
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { signInInChromium, spawnWaitingForLogin } from '../helpers/cli-browser-login.js'
import { runCli, startMainJob } from '../helpers/cli-process.js'
import { CLI_PATH, REPO_ROOT } from '../helpers/paths.js'

const PASSWORD = 'dpop choice password'
const DEMO = { username: 'demo', password: PASSWORD }
let browser: Browser
let dir: string
let open: { origin: string; stop(): Promise<void> } | undefined
let strict: { origin: string; stop(): Promise<void> } | undefined

beforeAll(async () => {
  ;[browser, open, strict, dir] = await Promise.all([
    launchChromium(),
    startMainJob(PASSWORD, 'mcp-auth-dpop-choice-'),
    startMainJob(PASSWORD, 'mcp-auth-dpop-required-', ['--require-dpop']),
    mkdtemp(join(tmpdir(), 'mcp-auth-dpop-choice-client-')),
  ])
})
afterAll(async () => {
  await browser?.close()
  await Promise.all([open?.stop(), strict?.stop()])
  await rm(dir, { recursive: true, force: true })
})

interface StoreFile {
  tokens: Record<string, { access_token: string; token_type: string }>
}
const readStore = async (file: string): Promise<StoreFile> => JSON.parse(await readFile(file, 'utf8')) as StoreFile

/** `mcp-auth <args>` through the login pages in Chromium. */
async function withBrowserLogin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const waiting = await spawnWaitingForLogin(args)
  await signInInChromium(browser, waiting.authorizationUrl, DEMO)
  return waiting.exited
}

describe('DPoP-bound or Bearer tokens from the CLI against mcp-auth start', () => {
  it('binds by default (the resource metadata lists DPoP); --no-dpop logs in with a Bearer token that call uses', async () => {
    const mcp = `${open!.origin}/mcp`
    const metadata = (await (await fetch(`${open!.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>
    expect(metadata['dpop_signing_alg_values_supported']).toContain('ES256')

    const bound = join(dir, 'bound.json')
    expect((await withBrowserLogin(['login', mcp, '--no-browser', '--store', bound])).code).toBe(0)
    expect(Object.values((await readStore(bound)).tokens).map((t) => t.token_type.toLowerCase())).toEqual(['dpop'])
    expect((await runCli(['whoami', mcp, '--store', bound])).stdout).toMatch(/^type {5}DPoP-bound \(RFC 9449\)$/m)

    const bearer = join(dir, 'bearer.json')
    const login = await withBrowserLogin(['login', mcp, '--no-dpop', '--no-browser', '--store', bearer])
    expect(login.code, login.stderr).toBe(0)
    expect(Object.values((await readStore(bearer)).tokens).map((t) => t.token_type.toLowerCase())).toEqual(['bearer'])
    expect((await runCli(['whoami', mcp, '--store', bearer])).stdout).toMatch(/^type {5}Bearer$/m)
    const call = await runCli(['call', mcp, 'echo', '{"text":"bearer from --no-dpop"}', '--no-dpop', '--no-browser', '--store', bearer])
    expect(call.code, call.stderr).toBe(0)
    expect(call.stdout).toContain('bearer from --no-dpop')

    const both = await runCli(['call', mcp, 'echo', '{}', '--dpop', '--no-dpop', '--store', bearer])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--dpop and --no-dpop')
  })

  it('mcp-auth token gets a Bearer token kept beside the bound one; the docs\u2019 curl command works as written', async () => {
    const mcp = `${open!.origin}/mcp`
    // the default store of the docs' command: $XDG_CONFIG_HOME/mcp-auth/tokens.json
    const xdg = join(dir, 'xdg')
    const store = join(xdg, 'mcp-auth', 'tokens.json')
    expect((await withBrowserLogin(['login', mcp, '--no-browser', '--store', store])).code).toBe(0)
    const boundToken = Object.values((await readStore(store)).tokens)[0]!

    const token = await withBrowserLogin(['token', mcp, '--no-browser', '--store', store])
    expect(token.code, token.stderr).toBe(0)
    const kept = (await readStore(store)).tokens
    expect(kept[JSON.stringify([open!.origin, mcp])]).toEqual(boundToken)
    expect(kept[JSON.stringify([open!.origin, `${mcp}#bearer`])]).toMatchObject({ access_token: token.stdout.trim(), token_type: expect.stringMatching(/^bearer$/i) })
    // call keeps its bound token
    const call = await runCli(['call', mcp, 'echo', '{"text":"still bound"}', '--no-browser', '--store', store])
    expect(call.code, call.stderr).toBe(0)
    expect(
      Object.values((await readStore(store)).tokens)
        .map((t) => t.token_type.toLowerCase())
        .sort(),
    ).toEqual(['bearer', 'dpop'])

    const docs = await readFile(join(REPO_ROOT, 'docs', 'client-login.md'), 'utf8')
    const command = /^curl .*\$\(mcp-auth token http:\/\/localhost:4000\/mcp\).*$/m.exec(docs)?.[0]
    expect(command).toBeDefined()
    const bin = join(dir, 'bin')
    await mkdir(bin, { recursive: true })
    await writeFile(join(bin, 'mcp-auth'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`)
    await chmod(join(bin, 'mcp-auth'), 0o755)
    const { stdout } = await promisify(execFile)('sh', ['-c', command!.replaceAll('http://localhost:4000', open!.origin)], {
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}`, XDG_CONFIG_HOME: xdg },
    })
    expect(stdout).toContain('"serverInfo"')

    // logout forgets both
    expect((await runCli(['logout', mcp, '--store', store])).code).toBe(0)
    expect((await readStore(store)).tokens).toEqual({})
  })

  it('refuses with mcp-auth token when the server takes DPoP-bound tokens only, naming the commands that carry the proof', async () => {
    const mcp = `${strict!.origin}/mcp`
    const token = await runCli(['token', mcp, '--no-browser', '--store', join(dir, 'strict.json')])
    expect(token.code).toBe(1)
    expect(token.stdout).toBe('')
    expect(token.stderr).toContain(`${mcp} accepts only DPoP-bound tokens`)
    expect(token.stderr).toContain('mcp-auth call, tools or proxy')
    expect(token.stderr).not.toContain('open this URL')
  })
})
