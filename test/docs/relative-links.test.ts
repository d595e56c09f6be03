/**
 * Issue 28, item 17: every relative link of README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md
 * resolves to a file of the repository (and a `#fragment` into a Markdown file to one of its
 * headings), and a file path quoted in code (`src/config/defaults.ts`) names a file that exists:
 * the README once sent contributors to `shared/STYLE.md`, which the repository does not have.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** The page without its fenced code blocks (a link there is an example, not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-')
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = anchor(match[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(match[1]!)
  return result
}

function linkProblems(page: string): string[] {
  const markdown = readFileSync(join(REPO_ROOT, page), 'utf8')
  const text = prose(markdown)
  const problems: string[] = []
  const targets = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]!)
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:
    const [path = '', fragment] = target.split('#')
    const file = path === '' ? join(REPO_ROOT, page) : join(REPO_ROOT, dirname(page), decodeURIComponent(path))
    if (!file.startsWith(REPO_ROOT) || !existsSync(file)) {
      problems.push(`${page}: ${target} (no ${relative(REPO_ROOT, file)})`)
      continue
    }
    if (fragment !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment)) {
      problems.push(`${page}: ${target} (no heading #${fragment} in ${relative(REPO_ROOT, file)})`)
    }
  }
  // a repository path quoted as code: `src/config/defaults.ts`, `docs/deployment.md`, `shared/STYLE.md`
  for (const match of text.matchAll(/`([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+\.(?:md|ts|mjs|js|json|jsonc|html|yml))`/g)) {
    const path = match[1]!
    // a page, or a file of the source tree (not data/, a user's config/ file, dist/ or node_modules/)
    if (!path.endsWith('.md') && !/^(src|test|docs|bench|scripts|views|examples)\//.test(path)) continue
    if (!existsSync(join(REPO_ROOT, path)) && !existsSync(join(REPO_ROOT, dirname(page), path))) problems.push(`${page}: \`${path}\` (no such file)`)
  }
  return problems
}

describe('relative links of the documentation', () => {
  it.each(pages)('%s links only to files and headings the repository has', (page) => {
    expect(existsSync(join(REPO_ROOT, page)), `${page} is missing`).toBe(true)
    expect(linkProblems(page)).toEqual([])
  })
})
