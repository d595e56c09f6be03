/**
 * Issue 28, item 18: `npm start` builds only when what the build reads changed. The script runs on a
 * copy in a temporary project (a small src/, the repository's node_modules), never on this
 * repository's dist/, which other tests are running.
 */
import { spawnSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/paths.js'

let project: string

function run(...args: string[]): { code: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(project, 'scripts', 'build-if-stale.mjs'), ...args], { cwd: project, encoding: 'utf8' })
  return { code: result.status, output: result.stdout + result.stderr }
}

const builtAt = async (): Promise<number> => (await stat(join(project, 'dist', 'cli', 'main.js'))).mtimeMs

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'mcp-auth-build-if-stale-'))
  await mkdir(join(project, 'scripts'))
  await mkdir(join(project, 'src', 'cli'), { recursive: true })
  await cp(join(REPO_ROOT, 'scripts', 'build-if-stale.mjs'), join(project, 'scripts', 'build-if-stale.mjs'))
  await symlink(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'stale-check', type: 'module' }))
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', target: 'ES2022', skipLibCheck: true, types: [] } }))
  await writeFile(join(project, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }))
  await writeFile(join(project, 'src', 'cli', 'main.ts'), "export const greeting: string = 'hello'\n")
})
afterAll(() => rm(project, { recursive: true, force: true }))

describe('scripts/build-if-stale.mjs', () => {
  it('builds when there is no earlier build, then not again while nothing changed', async () => {
    const first = run()
    expect(first).toEqual({ code: 0, output: 'building dist/ (no finished build here yet)\n' })
    const built = await builtAt()
    const second = run()
    expect(second).toEqual({ code: 0, output: '' })
    expect(await builtAt()).toBe(built)
  })

  it('does not build for a changed mtime alone (a checkout, a copy)', async () => {
    const built = await builtAt()
    const later = new Date(Date.now() + 60_000)
    await utimes(join(project, 'src', 'cli', 'main.ts'), later, later)
    expect(run()).toEqual({ code: 0, output: '' })
    expect(await builtAt()).toBe(built)
  })

  it('builds after a source changed, and after a tsconfig changed', async () => {
    await writeFile(join(project, 'src', 'cli', 'main.ts'), "export const greeting: string = 'hello again'\n")
    expect(run()).toEqual({ code: 0, output: 'building dist/ (sources changed since the last build)\n' })
    expect(await readFile(join(project, 'dist', 'cli', 'main.js'), 'utf8')).toContain('hello again')
    await writeFile(join(project, 'src', 'added.ts'), 'export const added = 1\n')
    expect(run().output).toBe('building dist/ (sources changed since the last build)\n')
    const config = JSON.parse(await readFile(join(project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> }
    config.compilerOptions['removeComments'] = true
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(config))
    expect(run().output).toBe('building dist/ (sources changed since the last build)\n')
    expect(run()).toEqual({ code: 0, output: '' })
  })

  it('fails with the compiler errors when the build fails, and builds again on the next run', async () => {
    await writeFile(join(project, 'src', 'broken.ts'), 'export const broken: number = "not a number"\n')
    const failed = run()
    expect(failed.code).not.toBe(0)
    expect(failed.output).toMatch(/broken\.ts.*error TS2322/)
    await rm(join(project, 'src', 'broken.ts'))
    expect(run()).toEqual({ code: 0, output: 'building dist/ (no finished build here yet)\n' })
  })

  it('builds every time with --force (npm run build, pretest)', async () => {
    const built = await builtAt()
    expect(run('--force')).toEqual({ code: 0, output: '' })
    expect(await builtAt()).toBeGreaterThan(built)
    expect(run()).toEqual({ code: 0, output: '' })
  })
})
