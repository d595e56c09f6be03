/**
 * The package as a consumer gets it: `npm pack` of this checkout installed by npm into a fresh
 * project (production dependencies only, so no devDependency can hide a missing type), then a TypeScript consumer importing every entry point compiled with strict
 * settings and `skipLibCheck: false`, and run. Also what the tarball holds and leaves out.
 */
import { execFileSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, unknown>
  bin: Record<string, string>
}
const entryPoints = Object.keys(pkg.exports).filter((key) => key !== './package.json')
let dir: string
let files: string[]

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-consumer-'))
  // dist/ is built by `npm test`'s pretest; --ignore-scripts keeps pack from building it again
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: REPO_ROOT, encoding: 'utf8' })) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  files = packed[0]!.files.map((file) => file.path)
  // a real install of the tarball, as a consumer's npm does it (from the cache npm ci filled)
  const typesNode = (JSON.parse(await readFile(join(REPO_ROOT, 'node_modules', '@types', 'node', 'package.json'), 'utf8')) as { version: string }).version
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, packed[0]!.filename), `@types/node@${typesNode}`], {
    cwd: dir,
    stdio: 'pipe',
  })
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('holds the build, the page templates and the example configuration, and no sources, tests or data', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'views/layout.html',
        'views/callback.html',
        'config/auth-server.example.json',
      ]),
    )
    expect(files.filter((file) => /^(src|test|bench|\.ci|data|examples)\//.test(file))).toEqual([])
    expect(files.filter((file) => file.endsWith('.test.js') || file.includes('node_modules'))).toEqual([])
  })

  it(`type-checks a strict consumer of every entry point (${entryPoints.length}) with skipLibCheck off, and runs it`, async () => {
    const consumer = dir
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], outDir: 'out' },
        include: ['index.ts'],
      }),
    )
    const imports = entryPoints.map((entry, i) => `import * as m${i} from '${join(pkg.name, entry)}'`).join('\n')
    const uses = entryPoints.map((entry, i) => `  '${entry}': Object.keys(m${i}).length,`).join('\n')
    await writeFile(join(consumer, 'index.ts'), `${imports}\nconst counts: Record<string, number> = {\n${uses}\n}\nconsole.log(JSON.stringify(counts))\n`)
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    let output = ''
    try {
      execFileSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' })
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error)
    }
    expect(output).toBe('')
    const counts = JSON.parse(execFileSync(process.execPath, [join(consumer, 'out', 'index.js')], { encoding: 'utf8' })) as Record<string, number>
    for (const entry of entryPoints) expect(counts[entry], entry).toBeGreaterThan(0)
  }, 120_000)

  it('builds dist/ through prepare when packed from a checkout without it, as an install from git does', async () => {
    // the files a clone holds (tracked, and new ones not ignored): no dist/
    const checkout = join(dir, 'checkout')
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0')
    for (const file of listed.filter((name) => name !== '' && name !== 'node_modules')) {
      await mkdir(dirname(join(checkout, file)), { recursive: true })
      await copyFile(join(REPO_ROOT, file), join(checkout, file))
    }
    expect(listed.some((file) => file.startsWith('dist/'))).toBe(false)
    await symlink(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir')
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: checkout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as Array<{
      files: Array<{ path: string }>
    }>
    expect(packed[0]!.files.map((file) => file.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']))
  }, 120_000)

  it('runs its command line from the unpacked package', () => {
    const bin = join(dir, 'node_modules', pkg.name, pkg.bin['mcp-auth']!)
    const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' })
    expect(help).toMatch(/start +run the main job/)
  })
})
