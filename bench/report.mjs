// Writes one benchmark's section into docs/performance.md, between markers named after it,
// so each benchmark owns its section and re-running one leaves the others alone.
import { spawnSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const DOC = fileURLToPath(new URL('../docs/performance.md', import.meta.url))
const HEADER = `# Performance

Figures measured on this project's development machine class (2 cores, loopback only). Each
benchmark compares against its anchor in the same run; re-run with the command shown in its
section. Numbers vary from machine to machine: compare ratios, not absolutes.
`

export async function writeSection(name, markdown) {
  let doc
  try {
    doc = await readFile(DOC, 'utf8')
  } catch {
    doc = HEADER
  }
  const start = `<!-- bench:${name}:start -->`
  const end = `<!-- bench:${name}:end -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  doc = from >= 0 && to > from ? doc.slice(0, from) + block + doc.slice(to + end.length) : `${doc.trimEnd()}\n\n${block}\n`
  await writeFile(DOC, doc)
}

export function machineLine() {
  return `Node ${process.version}, ${process.platform}/${process.arch}, measured ${new Date().toISOString().slice(0, 10)}`
}

/** The commit a checkout is at (short), and " (with changes)" when its tree differs from it; for a report's "build" line. */
export function commitOf(dir) {
  const head = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' })
  if (head.status !== 0) return 'an unknown commit'
  const dirty = spawnSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim() !== ''
  return `${head.stdout.trim()}${dirty ? ' (with changes)' : ''}`
}
