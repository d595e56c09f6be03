import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli-process.js'

describe('mcp-auth CLI', () => {
  it('lists its commands with --help and exits 0', async () => {
    const { code, stdout } = await runCli(['--help'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/Usage: mcp-auth <command>/)
    expect(stdout).toMatch(/demo-server/)
  })

  it('prints usage and exits 2 without a command', async () => {
    const { code, stdout } = await runCli([])
    expect(code).toBe(2)
    expect(stdout).toMatch(/Commands:/)
  })

  it('refuses an unknown command with exit code 2', async () => {
    const { code, stderr } = await runCli(['frobnicate'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown command 'frobnicate'/)
  })

  it('prints a verb’s own help with --help', async () => {
    const { code, stdout } = await runCli(['demo-server', '--help'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/Usage: mcp-auth demo-server/)
  })

  it('refuses an unknown option or a bad port with exit code 2 and the usage', async () => {
    const unknown = await runCli(['demo-server', '--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/Unknown option '--bogus'/)
    const badPort = await runCli(['demo-server', '--port', '70000'])
    expect(badPort.code).toBe(2)
    expect(badPort.stderr).toMatch(/--port must be an integer from 0 to 65535/)
  })

  it('refuses a call --timeout that is not a number of seconds above 0 with exit code 2', async () => {
    for (const bad of ['0', 'abc', '']) {
      const { code, stderr } = await runCli(['call', 'http://127.0.0.1:1/mcp', 'echo', `--timeout=${bad}`])
      expect(code).toBe(2)
      expect(stderr).toContain(`--timeout must be a number of seconds above 0, got ${bad}`)
    }
  })

  it('demo-server --stdio answers on stdout with JSON-RPC lines only, and exits when stdin closes', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    ]
    const { code, stdout } = await runCli(['demo-server', '--stdio'], { input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n` })
    expect(code).toBe(0)
    const messages = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    // tools/call answers asynchronously, so the parse error may overtake it
    expect(messages).toHaveLength(3)
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-06-18' }) }),
        expect.objectContaining({ id: 2, result: { content: [{ type: 'text', text: 'hi' }] } }),
        expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }),
      ]),
    )
  })

  it('takes the same login options in every client command (issue 28)', async () => {
    const flags = [
      '--no-browser',
      '--callback-port',
      '--store',
      '--client-id',
      '--client-secret',
      '--client-metadata-url',
      '--jwt-bearer-assertion-file',
      '--jwt-bearer-assertion-env',
      '--client-credentials',
    ]
    for (const verb of ['login', 'logout', 'whoami', 'token', 'tools', 'call', 'proxy']) {
      const { code, stdout } = await runCli([verb, '--help'])
      expect(code).toBe(0)
      for (const flag of flags) expect(stdout, `${verb} --help`).toContain(flag)
    }
    const whoami = await runCli(['whoami', 'http://127.0.0.1:9/mcp', '--no-browser', '--callback-port', '0', '--store', '/nonexistent/mcp-auth-tokens.json'])
    expect(whoami.stderr).not.toContain('Unknown option')
    expect(whoami.code).toBe(1)
  })
})
