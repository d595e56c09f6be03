import { defaults } from '../config/defaults.js'
import { StdioClientTransport } from '../transports/stdio/stdio-client-transport.js'
import type { AccountValues } from './account-values.js'
import type { ChildFactory } from './child-factory.js'
import { principalEnvironment } from './child-environment.js'
import { ChildLink } from './child-link.js'
import { describePrincipal } from './principal.js'

export interface StdioChildrenOptions {
  /** The MCP server's executable, looked up on PATH, never run through a shell. */
  command: string
  args?: readonly string[]
  cwd?: string
  /** Variables every child gets (on top of the allow-listed ones of ours: `defaults.stdio.inheritedEnv`). */
  env?: Readonly<Record<string, string>>
  /** The per-account values of each subject, added to its children's environment. */
  accountValues?: AccountValues
  /** Where the children's stderr and the gateway's remarks on them go, a line each. */
  log: (line: string) => void
  /** Longest line (bytes) read from a child's stdout. Default `defaults.stdio.maxLineBytes`. */
  maxLineBytes?: number
}

/**
 * Children that are stdio processes: `command` spawned with the principal in its environment
 * (`MCP_AUTH_SUBJECT`, `MCP_AUTH_CLIENT_ID`, `MCP_AUTH_SCOPE`, and the subject's per-account
 * values), its stderr copied to the log a line at a time with its pid and principal.
 */
export function stdioChildren(options: StdioChildrenOptions): ChildFactory {
  return async (principal, { exclusive }) => {
    const values =
      principal?.subject !== undefined && principal.subject !== '' && options.accountValues !== undefined ? await options.accountValues.valuesFor(principal.subject) : {}
    const transport = new StdioClientTransport({
      command: options.command,
      args: options.args ?? [],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      env: { ...options.env, ...principalEnvironment(principal, values) },
      stderr: 'pipe',
      // many callers' requests to one child: one pipe write per turn of the event loop
      coalesceWrites: true,
      ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    })
    const who = principal === undefined ? 'shared' : describePrincipal(principal)
    const log = (line: string) => options.log(`[child pid=${transport.pid ?? '-'} ${who}] ${line}`)
    const link = new ChildLink(transport, {
      ...(exclusive !== undefined ? { exclusive } : {}),
      log,
      describeExit: () => {
        const status = transport.exitStatus
        if (status === undefined) return 'the MCP server process closed its output'
        return status.signal !== null ? `the MCP server process was ended by ${status.signal}` : `the MCP server process exited with code ${status.code}`
      },
    })
    copyLines(transport, log)
    await link.start()
    return link
  }
}

/**
 * A child's stderr to the log, a line at a time, each cut at `maxStderrLineBytes`: the rest of a
 * longer line is dropped as it arrives, so a child that floods stderr cannot grow our memory.
 */
function copyLines(transport: StdioClientTransport, log: (line: string) => void): void {
  const stderr = transport.stderr
  if (stderr === null) return
  const max = defaults.gateway.maxStderrLineBytes
  let held = ''
  let cut = false
  stderr.setEncoding('utf8')
  stderr.on('data', (chunk: string) => {
    let start = 0
    for (let end = chunk.indexOf('\n', start); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = cut ? held : held + chunk.slice(start, end)
      log(cut || line.length > max ? `${line.slice(0, max)}… (cut)` : line.replace(/\r$/, ''))
      held = ''
      cut = false
      start = end + 1
    }
    if (!cut) {
      held += chunk.slice(start)
      if (held.length > max) cut = true
    }
  })
  stderr.on('end', () => {
    if (held !== '') log(cut ? `${held.slice(0, max)}… (cut)` : held)
  })
}
