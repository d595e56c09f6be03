import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, startCli, stopChild } from './cli-process.js'

/** An account added with `mcp-auth users add` before the gateway starts. */
export interface GatewayAccount {
  username: string
  password: string
}

/**
 * `mcp-auth gateway --port 0 --data-dir <tmp> [args] -- <command>` as a real process, after
 * `mcp-auth users add` for each account (the embedded store admits one process, so accounts come
 * first); `stop` ends it (and so its children) and removes the data directory.
 */
export async function startGateway(
  command: string[],
  accounts: GatewayAccount[],
  options: { args?: string[]; prefix?: string } = {},
): Promise<{ origin: string; dataDir: string; output: () => string; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), options.prefix ?? 'mcp-auth-gateway-'))
  for (const account of accounts) {
    const added = await runCli(['users', 'add', account.username, '--password-stdin', '--data-dir', dataDir], { input: `${account.password}\n` })
    if (added.code !== 0) throw new Error(`mcp-auth users add ${account.username} failed: ${added.stderr}`)
  }
  const started = await startCli(['gateway', '--port', '0', '--data-dir', dataDir, ...(options.args ?? []), '--', ...command])
  return {
    origin: new URL(started.url).origin,
    dataDir,
    output: started.output,
    stop: async () => {
      await stopChild(started.child)
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
