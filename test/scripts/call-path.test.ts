/**
 * Issue 29, item 3: scripts/call-path.mjs counts the folder hops of the two hot paths that
 * docs/architecture.md reports. It runs `mcp-auth start`'s stack from this repository's dist/ (npm
 * test builds first) in a child process, logs the demo user in, and records an authenticated
 * tools/call (in a session, and in the 2026-07-28 revision) and two token requests; this checks that
 * it still gets through and counts what it says.
 */
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

interface Walk {
  path: string
  root: string
  depth?: number
  entries: number
  folders: number
  hops: number
  back: number
  walk: { folder: string; functions: string[]; back: boolean; calls?: string[] }[]
}

function run(...args: string[]): Walk[] {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'call-path.mjs'), '--json', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 })
  expect(result.status, result.stderr).toBe(0)
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Walk)
}

/** The folders in the order the walk first enters them. */
const firstVisits = (walk: Walk): string[] => [...new Set(walk.walk.map((step) => step.folder))]

let walks: Walk[]
beforeAll(() => {
  walks = run()
}, 90_000)

describe('scripts/call-path.mjs', () => {
  it('records the two authenticated tools/calls and the two token requests, each from the observer wrapper into the app/ handler', () => {
    expect(walks.map((walk) => walk.path)).toEqual(['tools-call', 'tools-call-2026-07-28', 'token-code', 'token-refresh'])
    for (const walk of walks) {
      expect(walk.entries).toBeGreaterThan(0)
      expect(walk.walk.slice(0, 2).map((step) => step.folder)).toEqual(['observe', 'app'])
    }
  })

  it('walks each tools/call through the bearer check, a transport, the server and the tool', () => {
    for (const walk of walks.slice(0, 2)) {
      const order = firstVisits(walk)
      const at = (folder: string) => order.findIndex((seen) => seen === folder || seen.startsWith(`${folder}/`))
      const expected = ['auth/resource', 'transports', 'server', 'demo'].map(at)
      expect(expected.every((index) => index > 0)).toBe(true)
      expect([...expected].sort((a, b) => a - b)).toEqual(expected)
    }
    expect(firstVisits(walks[0]!)).toContain('protocol')
  })

  it('walks each token request into the authorization server and its storage', () => {
    for (const walk of walks.slice(2)) {
      const folders = firstVisits(walk)
      expect(folders.some((folder) => folder.startsWith('auth/server'))).toBe(true)
      expect(folders).toContain('storage')
    }
  })

  it('counts a hop per change of folder and a hop back per entry into a folder already walked', () => {
    for (const walk of walks) {
      expect(walk.hops).toBe(walk.walk.length - 1)
      expect(walk.back).toBe(walk.walk.slice(1).filter((step) => step.back).length)
      walk.walk.forEach((step, i) => {
        expect(step.back).toBe(walk.walk.slice(0, i).some((earlier) => earlier.folder === step.folder))
        if (i > 0) expect(step.folder).not.toBe(walk.walk[i - 1]!.folder)
      })
      expect(walk.folders).toBe(new Set(walk.walk.map((step) => step.folder)).size)
    }
  })

  it('with --depth 2 counts a sub-folder as its room (auth/server/provider as auth/server)', () => {
    // --root and --calls as docs/architecture.md shows them (the root here is this checkout)
    const [shallow] = run('--root', REPO_ROOT, '--path', 'token-code', '--depth', '2', '--calls')
    expect(shallow!.root).toBe(resolve(REPO_ROOT))
    for (const step of shallow!.walk) expect(step.calls?.[0]).toMatch(/^\S+\.js:\d+ \S/)
    expect(shallow!.depth).toBe(2)
    expect(shallow!.walk.every((step) => step.folder.split('/').length <= 2)).toBe(true)
    expect(shallow!.hops).toBeLessThanOrEqual(walks[2]!.hops)
  }, 60_000)
})
