// node:fs plus a minimal globSync for Node 20: it supports the only shape the conformance suite
// uses, `**/<file name>` (and a bare `<file name>`), under options.cwd.
import fs from 'node:fs'
import { join, relative } from 'node:path'

export * from 'node:fs'
export default fs

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd()
  const match = /^(\*\*\/)?([^*?[\]{}/]+)$/.exec(pattern)
  if (match === null) throw new Error(`globSync shim: unsupported pattern ${pattern}`)
  const [, anyDepth, name] = match
  if (!anyDepth) return fs.existsSync(join(cwd, name)) ? [name] : []
  return fs
    .readdirSync(cwd, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => relative(cwd, join(entry.parentPath ?? entry.path, entry.name)))
}
