/**
 * Issue 31: docs/gateway.md's two commands run as written (a data directory and an ephemeral
 * port added): an account is created, and the gateway serves server-everything through npx
 * behind our login.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { commandLines, shellWords } from '../helpers/doc-commands.js'
import { REPO_ROOT } from '../helpers/paths.js'

const page = await readFile(join(REPO_ROOT, 'docs/gateway.md'), 'utf8')
const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-doc-'))
afterAll(() => rm(dataDir, { recursive: true, force: true }))

describe("docs/gateway.md's two commands", () => {
  // the first line pipes the password in: `printf '%s\n' "$ALICE_PASSWORD" | mcp-auth users add …`
  const piped = /^printf '%s\\n' "\$\w+" \| mcp-auth (.+)$/m.exec(page)
  const addUser = piped === null ? undefined : { words: shellWords(piped[1]!) }
  const [gateway] = commandLines(page)

  it('are an account and the gateway in front of a stdio server', () => {
    expect(addUser!.words.slice(0, 2)).toEqual(['users', 'add'])
    expect(gateway!.words[0]).toBe('gateway')
    expect(gateway!.words).toContain('--')
  })

  it('run as written: the gateway serves the program behind our login', async () => {
    const added = await runCli([...addUser!.words, '--data-dir', dataDir], { input: 'a long password for alice\n' })
    expect(added.code, added.stderr).toBe(0)
    const machine = await runCli(['clients', 'add', '--name', 'doc test', '--grant-type', 'client_credentials', '--data-dir', dataDir])
    const [id, secret] = [/client_id: (\S+)/.exec(machine.stdout)![1]!, /client_secret: (\S+)/.exec(machine.stdout)![1]!]
    // the page's line, with this test's data directory and an ephemeral port
    const started = await startCli(['gateway', '--port', '0', '--data-dir', dataDir, ...gateway!.words.slice(1)])
    try {
      const origin = new URL(started.url).origin
      const token = await fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${origin}/mcp` }),
      })
      const { access_token } = (await token.json()) as { access_token: string }
      const init = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'doc', version: '1' } },
        }),
      })
      expect(await init.text()).toContain('"name":"mcp-servers/everything"')
    } finally {
      await stopChild(started.child)
    }
  }, 60_000)
})

describe("docs/gateway.md's other commands", () => {
  const lines = commandLines(page).slice(1)

  it('are --upstream, an account with the servers file’s scopes, and --servers with the example file', () => {
    expect(lines.map(({ words }) => words.slice(0, 2).join(' '))).toEqual(['gateway --port', 'users add', 'gateway --port'])
  })

  it('run as written (a data directory of their own, an ephemeral port): each gateway serves its metadata', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-doc-more-'))
    try {
      for (const { at, words } of lines) {
        // the page's port 4000 as an ephemeral one
        const args = [...words.map((word, i) => (words[i - 1] === '--port' ? '0' : word)), '--data-dir', dir]
        if (words[0] !== 'gateway') {
          const result = await runCli(args, { env: { MCP_AUTH_PASSWORD: 'a long password for alice' } })
          expect(result.code, `docs/gateway.md:${at}: ${result.stderr}`).toBe(0)
          continue
        }
        const started = await startCli(args)
        try {
          const origin = new URL(started.url).origin
          const path = words.includes('--servers') ? '/everything/mcp' : '/mcp'
          const metadata = await fetch(`${origin}/.well-known/oauth-protected-resource${path}`)
          expect(metadata.status, `docs/gateway.md:${at}`).toBe(200)
          expect(((await metadata.json()) as { resource: string }).resource).toBe(`${origin}${path}`)
        } finally {
          await stopChild(started.child)
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
