#!/usr/bin/env node
import { runCommand, UsageError, type Command } from './command.js'
import { INTERRUPTED_EXIT_CODE, onInterrupt } from './interrupt.js'
import { authServerCommand } from './commands/auth-server.js'
import { clientsCommand } from './commands/clients.js'
import { demoServerCommand } from './commands/demo-server.js'
import { keysCommand } from './commands/keys.js'
import { startCommand } from './commands/start.js'
import { gatewayCommand } from './commands/gateway.js'
import { loginCommand } from './commands/login.js'
import { logoutCommand } from './commands/logout.js'
import { whoamiCommand } from './commands/whoami.js'
import { tokenCommand } from './commands/token.js'
import { toolsCommand } from './commands/tools.js'
import { callCommand } from './commands/call.js'
import { proxyCommand } from './commands/proxy.js'
import { usersCommand } from './commands/users.js'
import { userEnvCommand } from './commands/user-env.js'
import { resourcesCommand } from './commands/resources.js'
import { grantsCommand } from './commands/grants.js'
import { auditCommand } from './commands/audit.js'
import { migrateCommand } from './commands/migrate.js'
import { statusCommand } from './commands/status.js'
import { backupCommand } from './commands/backup.js'
import { restoreCommand } from './commands/restore.js'

const commands: Command[] = [
  startCommand,
  gatewayCommand,
  authServerCommand,
  demoServerCommand,
  usersCommand,
  userEnvCommand,
  resourcesCommand,
  grantsCommand,
  auditCommand,
  clientsCommand,
  keysCommand,
  migrateCommand,
  statusCommand,
  backupCommand,
  restoreCommand,
  loginCommand,
  logoutCommand,
  whoamiCommand,
  tokenCommand,
  toolsCommand,
  callCommand,
  proxyCommand,
]

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    'Usage: mcp-auth <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'mcp-auth <command> --help' for a command's options.",
  ].join('\n')
}

// `mcp-auth tools … | head -3`: a reader that stopped reading ends the output, not with a stack
// trace (issue 28). Exit 0 quietly, as Unix tools do when their pipe closes.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(`${usage()}\n`)
    return verb === undefined ? 2 : 0
  }
  const command = commands.find((c) => c.name === verb)
  if (command === undefined) {
    process.stderr.write(`mcp-auth: unknown command '${verb}'\n\n${usage()}\n`)
    return 2
  }
  const interrupt = command.interruptible === true ? onInterrupt() : undefined
  try {
    return await runCommand(command, rest, interrupt === undefined ? undefined : { signal: interrupt.signal })
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`mcp-auth ${command.name}: ${error.message}\n${command.usage.trimEnd()}\n`)
      return 2
    }
    const description = (error as { error_description?: unknown }).error_description
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`mcp-auth ${command.name}: ${message}${typeof description === 'string' ? `: ${description}` : ''}\n`)
    return interrupt?.signal.aborted === true ? INTERRUPTED_EXIT_CODE : 1
  } finally {
    interrupt?.dispose()
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`mcp-auth: ${String(error)}\n`)
    process.exitCode = 1
  },
)
