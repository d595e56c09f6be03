/**
 * Every code snippet in README.md and docs/*.md, as a reader would paste it: TypeScript is
 * type-checked against the built package (imported by its name, `mcp-auth`), JavaScript is
 * syntax-checked, JSON is parsed, and every `mcp-auth` command line in a shell snippet names a
 * command that exists with options that command takes.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, symlink, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_PATH, REPO_ROOT } from '../helpers/paths.js'

interface Snippet {
  file: string
  line: number
  lang: string
  code: string
}

async function snippets(): Promise<Snippet[]> {
  const files = ['README.md', ...(await readdir(join(REPO_ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
  const found: Snippet[] = []
  for (const file of files) {
    const lines = (await readFile(join(REPO_ROOT, file), 'utf8')).split('\n')
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\w+)\s*$/.exec(lines[i]!)
      if (open === null) continue
      const end = lines.indexOf('```', i + 1)
      found.push({ file, line: i + 1, lang: open[1]!, code: lines.slice(i + 1, end).join('\n') })
      i = end
    }
  }
  return found
}

const all = await snippets()
const named = (s: Snippet) => `${s.file}:${s.line}`
const typescript = all.filter((s) => s.lang === 'ts' || s.lang === 'typescript')
const javascript = all.filter((s) => s.lang === 'js' || s.lang === 'javascript')
const json = all.filter((s) => s.lang === 'json')
const shell = all.filter((s) => s.lang === 'sh' || s.lang === 'bash' || s.lang === 'shell')

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-snippets-'))
  await mkdir(join(dir, 'node_modules', '@types'), { recursive: true })
  await symlink(REPO_ROOT, join(dir, 'node_modules', 'mcp-auth'), 'dir')
  await symlink(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir')
  // Koa and its types come with the package (dependencies): a snippet that mounts our middleware imports them
  await symlink(join(REPO_ROOT, 'node_modules', 'koa'), join(dir, 'node_modules', 'koa'), 'dir')
  await symlink(join(REPO_ROOT, 'node_modules', '@types', 'koa'), join(dir, 'node_modules', '@types', 'koa'), 'dir')
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'snippets', private: true, type: 'module' }))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('documentation snippets', () => {
  it('finds the snippets of every kind', () => {
    expect(typescript.length).toBeGreaterThanOrEqual(10)
    expect(shell.length).toBeGreaterThanOrEqual(5)
  })

  it('type-checks every TypeScript snippet against the package', async () => {
    const names: string[] = []
    for (const [i, snippet] of typescript.entries()) {
      const name = `snippet-${i}.ts`
      names.push(name)
      await writeFile(join(dir, name), `// ${named(snippet)}\n${snippet.code}\nexport {}\n`)
    }
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
        files: names,
      }),
    )
    let output = ''
    try {
      execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' })
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error)
    }
    // name the documentation place, not the temporary file
    const located = output.replace(/snippet-(\d+)\.ts\((\d+),(\d+)\)/g, (_m, i: string, line: string) => `${named(typescript[Number(i)]!)} +${Number(line) - 1}`)
    expect(located).toBe('')
  }, 60_000)

  it.each(javascript.map((s) => [named(s), s] as const))('JavaScript at %s parses', async (_name, snippet) => {
    const file = join(dir, `check-${snippet.line}.mjs`)
    await writeFile(file, snippet.code)
    execFileSync(process.execPath, ['--check', file])
  })

  it.each(json.map((s) => [named(s), s] as const))('JSON at %s parses', (_name, snippet) => {
    expect(() => JSON.parse(snippet.code)).not.toThrow()
  })

  it.each(shell.map((s) => [named(s), s] as const))('mcp-auth commands at %s exist with the options shown', (_name, snippet) => {
    const invocations = snippet.code
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .map((line) => /(?:^|\s)(?:npx\s+)?(?:mcp-auth|node dist\/cli\/main\.js)\s+(\S+)(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
    for (const [, command, rest] of invocations) {
      const help = execFileSync(process.execPath, [CLI_PATH, command!, '--help'], { encoding: 'utf8' })
      for (const option of rest!.match(/(?<=\s)--[a-z][a-z-]*/g) ?? []) expect(help, `${command} ${option}`).toContain(option)
    }
  })
})
