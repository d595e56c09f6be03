/**
 * Issue 28, item 17: `npm ci` on the oldest Node.js that package.json's `engines` admits prints no
 * EBADENGINE: every package package-lock.json installs accepts that version (content-type 3.1.1,
 * which wants Node 22, came in through @octokit/request; an override gives it 2.1.0).
 */
import { readFileSync } from 'node:fs'
import semver from 'semver'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

type Version = [number, number, number]

function version(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text
    .trim()
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : 0))
  return [major, minor, patch]
}

/** Whether `node` satisfies an `engines.node` range, as npm reads it (semver, npm's own parser). */
function satisfies(node: Version, range: string): boolean {
  return semver.satisfies(node.join('.'), range)
}

describe('package-lock.json', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> }
  const oldest = version(/^>=\s*(\S+)$/.exec(pkg.engines.node)![1]!)

  it(`installs only packages that run on Node.js ${oldest.join('.')}, the oldest package.json admits`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !Array.isArray(entry.engines) && entry.engines?.node !== undefined)
      .filter(([, entry]) => !satisfies(oldest, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path} wants node ${(entry.engines as { node: string }).node}`)
    expect(refusing).toEqual([])
  })
})
