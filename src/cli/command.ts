import { parseArgs, type ParseArgsConfig } from 'node:util'

/** What a running command is given besides its arguments. */
export interface CommandContext {
  /** Aborted by Ctrl-C when the command is `interruptible` (see cli/interrupt.ts); never otherwise. */
  signal: AbortSignal
}

/** One CLI verb: its usage text, its options, and what it does. */
export interface Command {
  name: string
  summary: string
  usage: string
  options: NonNullable<ParseArgsConfig['options']>
  allowPositionals?: boolean
  /** Ctrl-C aborts `context.signal` and the command ends what it waits for (exit 130), instead of the process dying mid-way. */
  interruptible?: boolean
  // biome-ignore lint/suspicious/noConfusingVoidType: a command without an exit code of its own returns nothing (0)
  run(values: Record<string, string | boolean | undefined>, positionals: string[], context: CommandContext): Promise<number | void>
}

/** Thrown for bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** Parse a verb's arguments; `--help` prints its usage and exits 0. */
export async function runCommand(command: Command, argv: string[], context: CommandContext = { signal: new AbortController().signal }): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${command.usage.trim()}\n`)
    return 0
  }
  return (await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals, context)) ?? 0
}

/** Parse a --port value: an integer from 0 (ephemeral) to 65535. */
export function parsePort(value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const port = Number(value)
  if (typeof value !== 'string' || !/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${String(value)}`)
  return port
}

/** Parse a duration given in seconds (`--timeout 90`, `--timeout 0.5`) into milliseconds. */
export function parseSeconds(name: string, value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--${name} must be a number of seconds above 0, got ${String(value)}`)
  return Math.round(seconds * 1000)
}
