import { spawn } from 'node:child_process'
import { formLogin } from './form-login.js'
import { CLI_PATH } from './paths.js'

/** What `runCliLoggingIn` saw: the exit code, the output, the login URLs the CLI printed. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
  logins: URL[]
}

/**
 * Runs `mcp-auth <args>` (with --no-browser) as a child process and, each time it prints a login
 * URL, signs in as `who` on the real login and consent pages over HTTP and follows the redirect
 * to its loopback callback, as a browser would. Without `who` a login URL is not answered and
 * the command is killed: a test that expects no login gets it in `logins`.
 */
export function runCliLoggingIn(args: string[], who?: { username: string; password: string }, options: { input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } })
    let stdout = ''
    let stderr = ''
    const logins: URL[] = []
    const pattern = /open this URL in a browser:\s+(\S+)\s/g
    let seen = 0
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      // from where the last login URL ended (exec resets lastIndex once it finds nothing)
      pattern.lastIndex = seen
      for (let match = pattern.exec(stderr); match !== null; match = pattern.exec(stderr)) {
        seen = pattern.lastIndex
        const url = new URL(match[1]!)
        logins.push(url)
        if (who === undefined) {
          child.kill('SIGKILL')
          return
        }
        void (async () => {
          const { callback } = await formLogin(url, { ...who, redirectUri: url.searchParams.get('redirect_uri')! })
          await (await fetch(callback)).body?.cancel()
        })().catch((error: unknown) => {
          child.kill('SIGKILL')
          reject(error)
        })
      }
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr, logins }))
    child.stdin.end(options.input ?? '')
  })
}
