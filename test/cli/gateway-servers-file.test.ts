/**
 * `mcp-auth gateway --servers FILE` (issue 31, item 4): the file's servers, and a one-line usage
 * error naming the server and the field for every mistake.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/command.js'
import { parseGatewayServers, readGatewayServersFile } from '../../src/cli/gateway-servers-file.js'
import { REPO_ROOT } from '../helpers/paths.js'

const parse = (servers: Record<string, unknown>, environment: NodeJS.ProcessEnv = {}) => parseGatewayServers({ servers }, 'servers.json', environment)
const refusal = (servers: Record<string, unknown>, environment: NodeJS.ProcessEnv = {}): string => {
  try {
    parse(servers, environment)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).not.toContain('\n')
    return (error as Error).message
  }
  throw new Error('not refused')
}

describe('the --servers file', () => {
  it('reads config/gateway-servers.example.json: server-everything and server-filesystem through npx', async () => {
    const servers = await readGatewayServersFile(join(REPO_ROOT, 'config/gateway-servers.example.json'), {})
    expect(servers.map((server) => server.name)).toEqual(['everything', 'files'])
    const [everything, files] = servers
    expect(everything).toMatchObject({
      child: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: {} },
      resource: { name: 'Everything (reference server)', requiredScopes: ['mcp'], scopes: ['mcp', 'mcp:admin'], toolScopes: { 'get-env': ['mcp:admin'] } },
    })
    expect(everything!.shared).toBeUndefined()
    expect(files).toMatchObject({
      child: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/shared'] },
      resource: { requiredScopes: ['files:read'], scopes: ['files:read', 'files:write'], toolScopes: { write_file: ['files:write'] } },
      shared: true,
    })
  })

  it('copies the named variables from our environment, as --env does', () => {
    const [server] = parse({ a: { command: 'x', env: ['API_KEY'] } }, { API_KEY: 'k-1', OTHER: 'no' })
    expect(server!.child.env).toEqual({ API_KEY: 'k-1' })
    expect(refusal({ a: { command: 'x', env: ['API_KEY'] } })).toBe('servers.json: server "a": env: no variable API_KEY in this environment')
  })

  it('takes scopes as a string or a list, and defaults to mcp', () => {
    expect(parse({ a: { command: 'x', scopes: 'mcp files:read' } })[0]!.resource).toEqual({ scopes: ['mcp', 'files:read'], requiredScopes: ['mcp', 'files:read'] })
    expect(parse({ a: { command: 'x', scopes: ['files:read'] } })[0]!.resource).toEqual({ scopes: ['files:read'], requiredScopes: ['files:read'] })
    expect(parse({ a: { command: 'x', toolScopes: { t: 'x:y' } } })[0]!.resource).toEqual({ scopes: ['mcp', 'x:y'], toolScopes: { t: ['x:y'] } })
    expect(parse({ a: { command: 'x' } })[0]!.resource).toEqual({})
  })

  it('names the server and the field of each mistake', () => {
    expect(refusal({ a: { command: 'x', argz: [] } })).toBe('servers.json: server "a": unknown field "argz"')
    expect(refusal({ a: { args: [] } })).toMatch(/^servers\.json: server "a": command: /)
    expect(refusal({ a: { command: 'x', args: 'one two' } })).toMatch(/^servers\.json: server "a": args: /)
    expect(refusal({ a: { command: 'x', shared: 'yes' } })).toMatch(/^servers\.json: server "a": shared: /)
    expect(refusal({ b: { command: 'x', scopes: 'mcp "bad' } })).toBe('servers.json: server "b": scopes: not a scope token: "\\"bad"')
    expect(refusal({ b: { command: 'x', toolScopes: { t: '' } } })).toBe('servers.json: server "b": toolScopes.t: no scope given')
    expect(refusal({ authorize: { command: 'x' } })).toMatch(/^servers\.json: server "authorize" is a path the gateway serves itself/)
    expect(refusal({ 'My Tools': { command: 'x' } })).toMatch(/^servers\.json: server "My Tools" is not a server name/)
    expect(refusal({})).toBe('servers.json: "servers" is empty: name at least one server')
    expect(() => parseGatewayServers({ servers: { a: { command: 'x' } }, server: {} }, 'servers.json', {})).toThrow(/^servers\.json: unknown field "server"$/)
    expect(() => parseGatewayServers({ server: {} }, 'servers.json', {})).toThrow(/^servers\.json: servers: /)
  })

  it('says when the file cannot be read or is not JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-servers-file-'))
    try {
      await expect(readGatewayServersFile(join(dir, 'missing.json'))).rejects.toThrow(/^--servers .*missing\.json: cannot read it/)
      await writeFile(join(dir, 'bad.json'), '{ "servers": ')
      await expect(readGatewayServersFile(join(dir, 'bad.json'))).rejects.toThrow(/^--servers .*bad\.json: not valid JSON/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
