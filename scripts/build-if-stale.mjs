#!/usr/bin/env node
// Builds dist/ with tsc only when what the build reads changed since the last build (issue 28,
// item 18: a second `npm start` takes a few seconds, not the 30 s of a full tsc run).
//
// What the build reads: src/**, tsconfig.json, tsconfig.build.json, package.json and
// package-lock.json (dependency types). views/ is read at run time from the package root, not
// built, so it is not an input. The inputs' contents (not their mtimes: a checkout or a copy
// changes mtimes without changing anything) are hashed into dist/.build-stamp after a build
// that succeeded; a build that fails leaves no stamp, so the next run builds again.
//
//   node scripts/build-if-stale.mjs           build when stale, else say nothing
//   node scripts/build-if-stale.mjs --force   build always (npm run build), then stamp
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const stampFile = join(root, 'dist', '.build-stamp')
const force = process.argv.includes('--force')

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

function inputsDigest() {
  const files = [...filesUnder(join(root, 'src')), ...['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'].map((name) => join(root, name))]
    .filter((file) => existsSync(file))
    .map((file) => relative(root, file).split('\\').join('/'))
    .sort()
  const hash = createHash('sha256')
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0')
  return hash.digest('hex')
}

const before = inputsDigest()
const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined
if (!force && stamp === before && existsSync(join(root, 'dist', 'cli', 'main.js'))) process.exit(0)

if (!force) process.stdout.write(stamp === undefined ? 'building dist/ (no finished build here yet)\n' : 'building dist/ (sources changed since the last build)\n')
rmSync(stampFile, { force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)
// the digest taken before tsc ran: a source saved during the build makes the next run build again
writeFileSync(stampFile, `${before}\n`)
