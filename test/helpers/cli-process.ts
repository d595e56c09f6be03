import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI_PATH } from './paths.js'

/** Runs `mcp-auth <args>` to completion. */
export function runCli(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}

/**
 * Runs `mcp-auth <args>` on a pseudo-terminal (util-linux `script`), as a user at a terminal
 * would: stdout and stderr are one TTY, whose size is unknown (0 columns) as on a serial console.
 * Resolves with everything written to it, escape sequences included.
 */
export function runCliOnTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const quote = (arg: string): string => `'${arg.replaceAll("'", "'\\''")}'`
  const command = [process.execPath, CLI_PATH, ...args].map(quote).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** A running `mcp-auth` command, once it wrote what a test waits for. */
export interface SpawnedCli {
  child: ChildProcess
  /** What matched on stderr. */
  match: RegExpExecArray
  /** Resolves with the exit code (null when a signal ended it) and everything it wrote. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>
  /** What it wrote to stderr so far. */
  stderr(): string
}

/** Spawns `mcp-auth <args>` and resolves once its stderr matches `until`; rejects if it exits first. */
export function spawnCliUntil(args: string[], until: RegExp): Promise<SpawnedCli> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      const match = until.exec(stderr)
      if (match === null) return
      child.stderr.off('data', onData)
      resolve({ child, match, exited, stderr: () => stderr })
    }
    child.stderr.on('data', onData)
    void exited.then(() => reject(new Error(`mcp-auth ${args[0]} exited before writing ${until}:\n${stderr}`)))
  })
}

/** Starts a long-running `mcp-auth <args>` and resolves with its URL once it prints `listening on <url>`. */
export function startCli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const timeoutMs = options.timeoutMs ?? 15_000
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } })
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no "listening on" within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /listening on (\S+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, url: match[1]!, output: () => output })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before listening:\n${output}`))
    })
  })
}

/** Stops a child and waits for it to exit. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill(signal)
  })
}

/**
 * `mcp-auth start` (the main job: authorization server and protected demo MCP server) on an
 * ephemeral port with its own data directory and demo password; `stop` ends it and removes the
 * directory.
 */
export async function startMainJob(password: string, prefix = 'mcp-auth-main-job-', args: string[] = []): Promise<{ origin: string; dataDir: string; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix))
  const started = await startCli(['start', '--port', '0', '--data-dir', dataDir, ...args], { env: { MCP_AUTH_DEMO_PASSWORD: password } })
  return {
    origin: new URL(started.url).origin,
    dataDir,
    stop: async () => {
      await stopChild(started.child)
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
