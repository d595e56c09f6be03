// Issue 33: the log's batched destination. Every line arrives, whole and in order, across many
// batches and lines longer than a batch; a file is 0600; a line never waits past flushMs; a
// process that exits leaves nothing unwritten (a file's lines also when it ends by process.exit;
// a pipe's batch still in flight at a process.exit may be lost, as with any asynchronous write).
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LogSink } from '../../src/observe/log-sink.js'
import { REPO_ROOT } from '../helpers/paths.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-log-sink-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const lineOf = (i: number, pad = 40): string => `${JSON.stringify({ i, text: 'é'.repeat(i % 7) + 'x'.repeat(pad) })}\n`

describe('LogSink', () => {
  it('writes every line whole and in order across many batches, long lines included, to a 0600 file it creates', async () => {
    const file = join(dir, 'nested', 'order.log')
    const sink = new LogSink({ destination: file, batchBytes: 512, flushMs: 20 })
    const expected: string[] = []
    for (let i = 0; i < 3000; i++) {
      // every 97th line is longer than a batch
      const line = lineOf(i, i % 97 === 0 ? 2000 : 40)
      expected.push(line)
      sink.write(line)
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    await expect.poll(async () => (await readFile(file, 'utf8')).length, { timeout: 5000 }).toBe(expected.join('').length)
    expect(await readFile(file, 'utf8')).toBe(expected.join(''))
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('writes a lone line within flushMs, without more lines to fill the batch', async () => {
    const file = join(dir, 'lone.log')
    const sink = new LogSink({ destination: file, batchBytes: 65536, flushMs: 30 })
    sink.write(lineOf(1))
    expect(await readFile(file, 'utf8')).toBe('')
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 2000, interval: 10 }).toBe(lineOf(1))
  })

  /** Runs `body` in a child process with a LogSink on `destination`; resolves with its exit code and stderr. */
  function inChild(destination: string | number, body: string): Promise<{ code: number | null; stderr: string }> {
    const sinkModule = join(REPO_ROOT, 'dist/observe/log-sink.js')
    const script = `
      const { LogSink } = await import(${JSON.stringify(sinkModule)})
      const sink = new LogSink({ destination: ${JSON.stringify(destination)}, batchBytes: 4096, flushMs: 60000 })
      ${body}
    `
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'pipe'] })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      child.once('close', (code) => resolve({ code, stderr }))
    })
  }
  const numbered = (text: string): number[] =>
    text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { i: number }).i)
  const thousand = Array.from({ length: 1000 }, (_, i) => i)
  const writeThousand = `for (let i = 0; i < 1000; i++) sink.write(JSON.stringify({ i }) + '\\n')`

  it('leaves nothing unwritten in a file when the process exits right after writing, even by process.exit', async () => {
    const file = join(dir, 'exit.log')
    const { code } = await inChild(file, `${writeThousand}\nprocess.exit(0)`)
    expect(code).toBe(0)
    expect(numbered(await readFile(file, 'utf8'))).toEqual(thousand)
  })

  it('writes to a pipe (stderr) asynchronously, every line in order, the last batch at exit', async () => {
    // a batch is in flight when the loop ends; the one still filling is written at exit
    const { code, stderr } = await inChild(2, writeThousand)
    expect(code).toBe(0)
    expect(numbered(stderr)).toEqual(thousand)
  })
})
