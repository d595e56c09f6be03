/**
 * Issue 32: docs/administration.md's commands run as written against a running `mcp-auth start`
 * (its data directory and an ephemeral port put in): the first administrator on the data
 * directory before the start, every CLI line through the admin API (`--server`, the login done
 * on the real pages), and the curl lines with a token of the API.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminToken } from '../helpers/admin-api.js'
import { runCliLoggingIn } from '../helpers/cli-admin.js'
import { runCli, startCli, stopChild } from '../helpers/cli-process.js'
import { commandLines, shellWords } from '../helpers/doc-commands.js'
import { REPO_ROOT } from '../helpers/paths.js'

const page = await readFile(join(REPO_ROOT, 'docs/administration.md'), 'utf8')
const DOC_ORIGIN = 'http://localhost:4000'
const root = { username: 'root', password: 'a long password for root' }
let dir: string
let server: ChildProcess | undefined
let origin: string

/** The lines of the page's sh blocks that start with `word`, continuation lines joined. */
function shellLines(word: string): string[] {
  const lines: string[] = []
  const text = page.split('\n')
  for (let i = 0; i < text.length; i++) {
    if (!/^```sh\s*$/.test(text[i]!)) continue
    for (i++; text[i] !== '```'; i++) if (text[i]!.startsWith(word)) lines.push(text[i]!)
  }
  return lines
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-admin-doc-'))
}, 30_000)
afterAll(async () => {
  if (server !== undefined) await stopChild(server)
  await rm(dir, { recursive: true, force: true })
})

describe("docs/administration.md's commands", () => {
  const piped = /^printf '%s\\n' "\$ROOT_PASSWORD" \| mcp-auth (.+)$/m.exec(page)
  const viaApi = commandLines(page).filter((line) => line.words.some((word) => word === DOC_ORIGIN || word.startsWith(`${DOC_ORIGIN}/`)))

  it('make the first administrator on the data directory, then the server starts', async () => {
    expect(piped).not.toBeNull()
    const words = shellWords(piped![1]!)
    expect(words.slice(0, 4)).toEqual(['users', 'add', 'root', '--admin'])
    const made = await runCli([...words, '--data-dir', join(dir, 'data')], { input: `${root.password}\n` })
    expect(made.code, made.stderr).toBe(0)
    const started = await startCli(['start', '--port', '0', '--data-dir', join(dir, 'data')], { env: { MCP_AUTH_DEMO_PASSWORD: 'a demo password' } })
    server = started.child
    origin = new URL(started.url).origin
  }, 60_000)

  it('run through the admin API of the running server (--server), each as written', async () => {
    expect(viaApi.length).toBeGreaterThanOrEqual(12)
    for (const line of viaApi) {
      const words = line.words.map((word) => (word.startsWith(DOC_ORIGIN) ? `${origin}${word.slice(DOC_ORIGIN.length)}` : word))
      const run = await runCliLoggingIn([...words, '--no-browser', '--store', join(dir, 'tokens.json')], root)
      expect(run.code, `line ${line.at}: mcp-auth ${line.words.join(' ')}\n${run.stderr}`).toBe(0)
    }
    // what they did: alice exists, disabled, an ordinary account again; the robot is registered;
    // and the logout forgot the administrator's tokens (the next command logs in again)
    const listed = await runCliLoggingIn(['users', 'list', '--server', origin, '--no-browser', '--store', join(dir, 'tokens.json')], root)
    expect(listed.logins).toHaveLength(1)
    expect(listed.stdout).toMatch(/^alice\t\S+\tmcp\tdisabled$/m)
    const clients = await runCliLoggingIn(['clients', 'list', '--server', origin, '--no-browser', '--store', join(dir, 'tokens.json')], root)
    expect(clients.stdout).toContain('robot')
  }, 120_000)

  it('run the curl lines with an administrator’s token', async () => {
    const curls = shellLines('curl ')
    expect(curls).toHaveLength(3)
    const token = (await adminToken(origin, root)).access_token
    const etag = (await fetch(`${origin}/admin/api/accounts/alice`, { headers: { authorization: `Bearer ${token}` } })).headers.get('etag')!
    for (const line of curls) {
      const { code, stdout } = await sh(line.replace(/'/g, "'"), { TOKEN: token, ISSUER: origin, ETAG: etag })
      expect(code, line).toBe(0)
      expect(stdout, line).toContain('"username":"alice"')
      expect(stdout, line).not.toContain('urn:mcp-auth:admin:')
    }
  }, 60_000)
})

function sh(command: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout }))
  })
}
