#!/usr/bin/env node
import { runCommand, UsageError, type Command } from './command.js'
import { demoServerCommand } from './commands/demo-server.js'

const commands: Command[] = [demoServerCommand]

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
  try {
    return await runCommand(command, rest)
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`mcp-auth ${command.name}: ${error.message}\n${command.usage.trimEnd()}\n`)
      return 2
    }
    process.stderr.write(`mcp-auth ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
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
