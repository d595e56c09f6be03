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
    const options = { ...command.options, help: { type: 'boolean', short: 'h' } } as const
    parsed = parseArgs({
      args: idsAsOperands(argv, options),
      options,
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

/**
 * Generated identifiers (grant ids, client ids, token ids) are base64url and one in 64 starts with
 * '-': `grants revoke -Kx3…` or `--client -Kx3…` must mean that id, not an unknown short option.
 * The only short option is -h, so a single-dash word longer than two characters is an operand, and
 * a string option's value is taken from the next word unless that word is a long option. The
 * operands go after '--' in their order, so parseArgs takes them as they are.
 */
export function idsAsOperands(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const flags: string[] = []
  const operands: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--') {
      operands.push(...argv.slice(i + 1))
      break
    }
    if (arg.startsWith('--')) {
      const next = argv[i + 1]
      const takesValue = !arg.includes('=') && options[arg.slice(2)]?.type === 'string'
      if (takesValue && next !== undefined && next !== '--' && !next.startsWith('--')) {
        flags.push(`${arg}=${next}`)
        i++
      } else flags.push(arg)
    } else if (arg.startsWith('-') && arg.length === 2) flags.push(arg)
    else operands.push(arg)
  }
  return operands.length === 0 ? flags : [...flags, '--', ...operands]
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
