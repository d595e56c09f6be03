import { describe, expect, it } from 'vitest'
import { type Command, runCommand, UsageError } from '../../src/cli/command.js'

/** A verb that records what it was given, like `grants revoke <grant-id> --client ID`. */
function recorder(allowPositionals = true): { command: Command; seen: { values?: Record<string, unknown>; positionals?: string[] } } {
  const seen: { values?: Record<string, unknown>; positionals?: string[] } = {}
  const command: Command = {
    name: 'grants',
    summary: '',
    usage: 'usage',
    options: { client: { type: 'string' }, user: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals,
    async run(values, positionals) {
      seen.values = { ...values }
      seen.positionals = positionals
    },
  }
  return { command, seen }
}

describe('command arguments: generated ids that start with a dash', () => {
  it('takes "-Kx3…" as the operand it is, not an unknown short option', async () => {
    const { command, seen } = recorder()
    expect(await runCommand(command, ['revoke', '-Kx3hQ9_aZ', '--json'])).toBe(0)
    expect(seen.positionals).toEqual(['revoke', '-Kx3hQ9_aZ'])
    expect(seen.values).toMatchObject({ json: true })
  })

  it('takes "--client -Kx3…" as the option value', async () => {
    const { command, seen } = recorder()
    await runCommand(command, ['list', '--client', '-Kx3hQ9_aZ', '--user', 'alice'])
    expect(seen.values).toMatchObject({ client: '-Kx3hQ9_aZ', user: 'alice' })
    expect(seen.positionals).toEqual(['list'])
  })

  it('keeps the operands in order around "--" and options', async () => {
    const { command, seen } = recorder()
    await runCommand(command, ['revoke', '--user=bob', 'a', '--', '--not-an-option', '-x'])
    expect(seen.positionals).toEqual(['revoke', 'a', '--not-an-option', '-x'])
    expect(seen.values).toMatchObject({ user: 'bob' })
  })

  it('still refuses what is wrong: an unknown long option, a missing value, an operand where none is taken', async () => {
    await expect(runCommand(recorder().command, ['list', '--usr', 'bob'])).rejects.toThrow(UsageError)
    await expect(runCommand(recorder().command, ['list', '--client', '--user', 'bob'])).rejects.toThrow(/--client/)
    await expect(runCommand(recorder().command, ['list', '--client'])).rejects.toThrow(/--client/)
    await expect(runCommand(recorder(false).command, ['-Kx3hQ9_aZ'])).rejects.toThrow(/Unexpected argument '-Kx3hQ9_aZ'/)
  })

  it('-h still prints the usage', async () => {
    const { command, seen } = recorder()
    const write = process.stdout.write
    let printed = ''
    process.stdout.write = ((chunk: string) => {
      printed += chunk
      return true
    }) as typeof process.stdout.write
    try {
      expect(await runCommand(command, ['-h'])).toBe(0)
    } finally {
      process.stdout.write = write
    }
    expect(printed).toBe('usage\n')
    expect(seen.positionals).toBeUndefined()
  })
})
