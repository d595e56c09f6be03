/**
 * Issue 28, item 2: a resource's `aliases` (other endpoint URLs of the same MCP server) in the
 * configuration, the resource store and `mcp-auth resources add`: validated (absolute URL without
 * fragment, no identifier naming two servers), and each alias a resource identifier of its own
 * for the client_credentials and JWT bearer grants.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ResourceStore } from '../../../src/auth/server/stores/resource-store.js'
import { resolveOptions } from '../../../src/auth/server/options.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'
import { runCli } from '../../helpers/cli-process.js'

const MCP = 'http://localhost:4160/mcp'
const SSE = 'http://localhost:4160/sse'
const REST = 'http://localhost:4160/rest'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('resource aliases in the configuration', () => {
  it('keeps the aliases of a resource, once each', () => {
    const { resources } = resolveOptions({ resources: [{ uri: MCP, aliases: [SSE, REST, SSE] }] })
    expect(resources[0]).toMatchObject({ uri: MCP, aliases: [SSE, REST] })
  })

  it('refuses an alias with a fragment, a relative one, and one naming the resource itself', () => {
    expect(() => resolveOptions({ resources: [{ uri: MCP, aliases: [`${SSE}#x`] }] })).toThrow(/resource alias must not have a query or fragment/)
    expect(() => resolveOptions({ resources: [{ uri: MCP, aliases: ['/sse'] }] })).toThrow(/resource alias must be an absolute URL/)
    expect(() => resolveOptions({ resources: [{ uri: MCP, aliases: [MCP] }] })).toThrow(/aliases of http:\/\/localhost:4160\/mcp name the resource itself/)
  })

  it("refuses an alias that is another resource or another resource's alias", () => {
    expect(() => resolveOptions({ resources: [{ uri: MCP, aliases: [SSE] }, { uri: SSE }] })).toThrow(/http:\/\/localhost:4160\/sse is both/)
    expect(() =>
      resolveOptions({
        resources: [
          { uri: MCP, aliases: [SSE] },
          { uri: 'http://localhost:4161/mcp', aliases: [SSE] },
        ],
      }),
    ).toThrow(/http:\/\/localhost:4160\/sse is both/)
  })
})

describe('resource aliases in the store', () => {
  it('refuses a stored resource whose alias another stored resource has, and replaces its own', async () => {
    const store = new ResourceStore(createMemoryStorage().records)
    await store.add({ uri: MCP, aliases: [SSE] })
    await expect(store.add({ uri: 'http://localhost:4161/mcp', aliases: [SSE] })).rejects.toThrow(
      /http:\/\/localhost:4160\/sse already names the stored resource http:\/\/localhost:4160\/mcp/,
    )
    await expect(store.add({ uri: SSE })).rejects.toThrow(/already names the stored resource/)
    await store.add({ uri: MCP, aliases: [SSE, REST] })
    expect((await store.list()).map((resource) => resource.aliases)).toEqual([[SSE, REST]])
  })

  it('is given aliases by `mcp-auth resources add --aliases`, and lists them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-aliases-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const add = await runCli(['resources', 'add', MCP, '--aliases', `${SSE} ${REST}`, '--data-dir', dir])
    expect(add.stderr).toBe('')
    expect(add.code).toBe(0)
    const list = await runCli(['resources', 'list', '--data-dir', dir])
    expect(list.stdout).toContain(`aliases: ${SSE} ${REST}`)
    const bad = await runCli(['resources', 'add', 'http://localhost:4161/mcp', '--aliases', SSE, '--data-dir', dir])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('already names the stored resource')
  })
})
