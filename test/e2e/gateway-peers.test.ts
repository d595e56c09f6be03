/**
 * Issue 31, acceptance: third-party stdio servers, unmodified (server-everything and
 * server-filesystem from npm, and a Python one with only the standard library), each behind a real
 * `mcp-auth gateway` process (one per server, our authorization server on the same origin), are
 * logged into and used by three real peers: the official SDK v2 client (Streamable HTTP, an OAuth
 * provider that signs in through our login and consent pages), mcp-remote (the stdio bridge
 * desktop clients run; its browser hand-off driven in Chromium) and our own CLI (`mcp-auth login`,
 * then `tools`, `call`, and a stdio host through `mcp-auth proxy`). Each peer lists and calls
 * tools, reads resources and gets prompts where the server has them, and answers the child's
 * sampling request on its stateful session (the SDK v2 client, also behind `mcp-auth proxy`,
 * answers elicitation too). Two principals get two children: their environments
 * differ.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type VersionNegotiationMode } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { cliLoginInChromium } from '../helpers/cli-browser-login.js'
import { runCli } from '../helpers/cli-process.js'
import { formLogin } from '../helpers/form-login.js'
import { freePort } from '../helpers/free-port.js'
import { type GatewayAccount, startGateway } from '../helpers/gateway-process.js'
import { mcpRemoteLoginInChromium, startMcpRemote } from '../helpers/mcp-remote.js'
import { CLI_PATH, REPO_ROOT } from '../helpers/paths.js'
import { MemoryProvider } from '../helpers/sdk-v2-provider.js'

const ADA: GatewayAccount = { username: 'ada', password: 'ada gateway peers password' }
const BOB: GatewayAccount = { username: 'bob', password: 'bob gateway peers password' }
const BIN = join(REPO_ROOT, 'node_modules', '.bin')
const PYTHON_SERVER = join(REPO_ROOT, 'test', 'fixtures', 'python-mcp-server', 'server.py')
/** What the SDK v2 client's "model" answers to a sampling request. */
const SAMPLED = 'Paris, said the client'
/** What the SDK v2 client's "user" enters when asked (elicitation). */
const ELICITED = 'Ada Lovelace'

type Arguments = Record<string, unknown>
type ToolResult = { content?: Array<{ type: string; text?: string }>; isError?: boolean }

/** One third-party server under test and what each peer does with it. */
interface ServerUnderTest {
  name: string
  /** The gateway's `-- <command>`, given a temporary directory of the test's own. */
  command(dir: string): Promise<string[]>
  /** A tools/call every peer makes, and text its result contains. */
  call: { tool: string; arguments: Arguments; expect: string }
  /** A resource to read, by URI or the first one listed, and text it contains. */
  resource?: { uri?: string; expect?: string }
  /** A prompt to get, and text its messages contain. */
  prompt?: { name: string; arguments?: Record<string, string>; expect: string }
  /** A tool that sends sampling/createMessage to the client; its result contains the client's answer. */
  sampling?: { tool: string; arguments: Arguments }
  /** A tool that sends elicitation/create to the client; its result contains the name the client entered. */
  elicitation?: { tool: string; arguments: Arguments }
  /** A tool whose result names the roots the client answered roots/list with (the server asks at initialize). */
  roots?: { tool: string }
}

const SERVERS: ServerUnderTest[] = [
  {
    name: 'server-everything (npm)',
    command: async () => [join(BIN, 'mcp-server-everything')],
    call: { tool: 'echo', arguments: { message: 'through the gateway' }, expect: 'through the gateway' },
    resource: {},
    prompt: { name: 'simple-prompt', expect: 'simple prompt' },
    sampling: { tool: 'trigger-sampling-request', arguments: { prompt: 'the capital of France?' } },
    elicitation: { tool: 'trigger-elicitation-request', arguments: {} },
  },
  {
    name: 'server-filesystem (npm)',
    command: async (dir) => {
      await writeFile(join(dir, 'note.txt'), 'a note behind the gateway\n')
      return [join(BIN, 'mcp-server-filesystem'), dir]
    },
    call: { tool: 'read_text_file', arguments: { path: 'note.txt' }, expect: 'a note behind the gateway' },
    roots: { tool: 'list_allowed_directories' },
  },
  {
    name: 'a Python server (standard library only)',
    command: async () => ['python3', PYTHON_SERVER],
    call: { tool: 'add', arguments: { a: 2, b: 40 }, expect: '42' },
    resource: { uri: 'memo://hello' },
    prompt: { name: 'greet', arguments: { name: 'Ada' }, expect: 'Say hello to Ada.' },
    sampling: { tool: 'ask', arguments: { question: 'the capital of France?' } },
  },
]

let browser: Browser
beforeAll(async () => {
  browser = await launchChromium()
}, 30_000)
afterAll(async () => {
  await browser?.close()
})

/** The text parts of a tool result, joined. */
function textOf(result: unknown): string {
  return ((result as ToolResult).content ?? []).map((part) => part.text ?? '').join('\n')
}

/**
 * An SDK v2 client that declares sampling and elicitation and answers every sampling request with
 * SAMPLED and every elicitation with the name ELICITED; given
 * `roots` (directories), it declares roots too and answers roots/list with them.
 */
function samplingClient(name: string, mode: VersionNegotiationMode = 'legacy', roots?: string[]): Client {
  const capabilities = roots === undefined ? { sampling: {}, elicitation: {} } : { sampling: {}, elicitation: {}, roots: {} }
  const client = new Client({ name, version: '2.4.0' }, { capabilities, versionNegotiation: { mode } })
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: SAMPLED } }))
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: ELICITED } }))
  if (roots !== undefined) client.setRequestHandler('roots/list', async () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }))
  return client
}

/**
 * The SDK v2 client signed in as `who` through our pages (401 → metadata → registration → PKCE
 * with the login and consent forms → token), then connected: by default with its legacy
 * negotiation, an initialize handshake that opens a stateful session, declaring sampling and
 * answering it; pinned to 2026-07-28 it is a stateless client.
 */
async function sdkClientSignedIn(
  mcpUrl: URL,
  who: GatewayAccount,
  clientName: string,
  options: { mode?: VersionNegotiationMode; roots?: string[]; getStreamDelayMs?: number } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; clientId: string }> {
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`
  const provider = new MemoryProvider({ redirectUri, clientName })
  const client = samplingClient(clientName, options.mode, options.roots)
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
  const { callback } = await formLogin(provider.authorizationUrls[0]!, { ...who, redirectUri })
  await first.finishAuth(callback.searchParams)
  const delay = options.getStreamDelayMs
  // a client may open its standalone GET stream a while after initialized (or never)
  const later: typeof fetch = async (input, init) => {
    if (delay !== undefined && (init?.method ?? 'GET') === 'GET') await new Promise((resolve) => setTimeout(resolve, delay))
    return fetch(input, init)
  }
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: later })
  await client.connect(transport)
  return { client, transport, clientId: provider.clientInformation()!.client_id }
}

/**
 * The server's tools once those named are listed: server-everything adds the tools that need a
 * client capability (sampling) after `notifications/initialized`, so a list made at once may come
 * before them (a loaded machine shows it); the server announces them with list_changed.
 */
async function toolsOnceListed(client: Client, names: readonly string[]): Promise<Array<{ name: string }>> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const { tools } = await client.listTools()
    if (names.every((name) => tools.some((tool) => tool.name === name)) || Date.now() > deadline) return tools
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * What a host does with a server through the gateway: tools/list and a tools/call, resources
 * (list + read) and prompts (list + get) where the server has them, and the server's sampling and
 * elicitation requests answered by `client` (its answers come back in the tools' results).
 */
async function useEverything(client: Client, server: ServerUnderTest): Promise<void> {
  const tools = await toolsOnceListed(client, [server.call.tool, ...(server.sampling !== undefined ? [server.sampling.tool] : [])])
  expect(tools.map((tool) => tool.name)).toContain(server.call.tool)
  const called = await client.callTool({ name: server.call.tool, arguments: server.call.arguments })
  expect(called.isError, textOf(called)).toBeFalsy()
  expect(textOf(called)).toContain(server.call.expect)

  if (server.resource !== undefined) {
    const { resources } = await client.listResources()
    const uri = server.resource.uri ?? resources[0]?.uri
    expect(resources.map((resource) => resource.uri)).toContain(uri)
    const read = await client.readResource({ uri: uri! })
    expect(read.contents[0]?.uri).toBe(uri)
    if (server.resource.expect !== undefined) expect(JSON.stringify(read.contents)).toContain(server.resource.expect)
  }
  if (server.prompt !== undefined) {
    const { prompts } = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toContain(server.prompt.name)
    const got = await client.getPrompt({ name: server.prompt.name, ...(server.prompt.arguments ? { arguments: server.prompt.arguments } : {}) })
    expect(JSON.stringify(got.messages)).toContain(server.prompt.expect)
  }
  if (server.sampling !== undefined) {
    // the child asks the client's model over the gateway, on this session, and reports its answer
    expect(tools.map((tool) => tool.name)).toContain(server.sampling.tool)
    const sampled = await client.callTool({ name: server.sampling.tool, arguments: server.sampling.arguments })
    expect(sampled.isError, textOf(sampled)).toBeFalsy()
    expect(textOf(sampled)).toContain(SAMPLED)
  }
  if (server.elicitation !== undefined) {
    // the child asks the user (the client) for input, and reports what was entered
    expect(tools.map((tool) => tool.name)).toContain(server.elicitation.tool)
    const elicited = await client.callTool({ name: server.elicitation.tool, arguments: server.elicitation.arguments })
    expect(elicited.isError, textOf(elicited)).toBeFalsy()
    expect(textOf(elicited)).toContain(`Name: ${ELICITED}`)
  }
}

for (const server of SERVERS) {
  describe(`mcp-auth gateway -- ${server.name}`, () => {
    let gateway: Awaited<ReturnType<typeof startGateway>>
    let dir: string
    let mcpUrl: string

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'mcp-auth-gateway-peers-'))
      const work = join(dir, 'server')
      await mkdir(work)
      gateway = await startGateway(await server.command(work), [ADA, BOB], { prefix: 'mcp-auth-gateway-peers-data-' })
      mcpUrl = `${gateway.origin}/mcp`
    }, 30_000)
    afterAll(async () => {
      await gateway?.stop()
      if (dir !== undefined) await rm(dir, { recursive: true, force: true })
    })

    it('serves the SDK v2 client after its login: tools, a call, resources, prompts, sampling and elicitation round trips on its session', async () => {
      const { client, transport } = await sdkClientSignedIn(new URL(mcpUrl), ADA, 'sdk v2 through the gateway')
      try {
        // a stateful session: the gateway gave it a session id (and the session its own child)
        expect(transport.sessionId).toEqual(expect.any(String))
        await useEverything(client, server)
      } finally {
        await client.close()
      }
    }, 60_000)

    // The child sends roots/list as soon as it gets notifications/initialized (server-filesystem
    // does, at oninitialized), before the client opens its GET stream (here 1 s later) and with no
    // request in flight: the session keeps the request for the GET stream, which delivers it when
    // the client opens it (it was lost before: seen `{"method":"roots/list","jsonrpc":"2.0","id":0}`
    // on the child's stdout and a GET stream carrying only `retry: 1000`).
    const itWithRoots = server.roots === undefined ? () => {} : it
    itWithRoots(
      "answers the child's roots/list request sent before the client opened its GET stream",
      async () => {
        const root = join(dir, 'root from the client')
        await mkdir(root)
        const { client } = await sdkClientSignedIn(new URL(mcpUrl), ADA, 'sdk v2 with roots', { roots: [root], getStreamDelayMs: 1_000 })
        try {
          // nothing in flight while the child asks (it does at once after initialized)
          await new Promise((resolve) => setTimeout(resolve, 1_000))
          // once the client answered, the server works in its root; the answer arrives on its own time
          await expect.poll(async () => textOf(await client.callTool({ name: server.roots!.tool, arguments: {} })), { timeout: 4_000 }).toContain(root)
        } finally {
          await client.close()
        }
      },
      60_000,
    )

    it('serves mcp-remote after its browser login: initialize, tools, a call, resources, prompts and a sampling round trip through its stdio', async () => {
      const configDir = join(dir, 'mcp-remote')
      const callbackPort = await freePort()
      const remote = startMcpRemote(mcpUrl, callbackPort, ['--transport', 'http-only'], configDir)
      try {
        const authorizationUrl = new URL(await remote.authorizationUrl())
        expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl)
        await mcpRemoteLoginInChromium(browser, authorizationUrl.href, callbackPort, ADA)
        await remote.connected()
        remote.send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'desktop host', version: '1' } },
        })
        const initialized = await remote.response(1)
        expect(initialized.error, remote.stderr()).toBeUndefined()
        expect(initialized.result?.['serverInfo']).toBeDefined()
        remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
        let id = 1
        const ask = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
          remote.send({ jsonrpc: '2.0', id: ++id, method, params })
          const answered = await remote.response(id)
          expect(answered.error, `${method}: ${JSON.stringify(answered.error)}\n${remote.stderr()}`).toBeUndefined()
          return answered.result!
        }
        const listed = (await ask('tools/list', {}))['tools'] as Array<{ name: string }>
        expect(listed.map((tool) => tool.name)).toContain(server.call.tool)
        expect(textOf(await ask('tools/call', { name: server.call.tool, arguments: server.call.arguments }))).toContain(server.call.expect)
        if (server.resource !== undefined) {
          const resources = (await ask('resources/list', {}))['resources'] as Array<{ uri: string }>
          const uri = server.resource.uri ?? resources[0]?.uri
          expect(resources.map((resource) => resource.uri)).toContain(uri)
          expect(((await ask('resources/read', { uri }))['contents'] as Array<{ uri: string }>)[0]?.uri).toBe(uri)
        }
        if (server.prompt !== undefined) {
          expect(((await ask('prompts/list', {}))['prompts'] as Array<{ name: string }>).map((prompt) => prompt.name)).toContain(server.prompt.name)
          const got = await ask('prompts/get', { name: server.prompt.name, ...(server.prompt.arguments ? { arguments: server.prompt.arguments } : {}) })
          expect(JSON.stringify(got['messages'])).toContain(server.prompt.expect)
        }
        if (server.sampling !== undefined) {
          // the child's sampling request reaches the host on mcp-remote's stdout; the host's answer goes back on its stdin
          const callId = ++id
          remote.send({ jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: server.sampling.tool, arguments: server.sampling.arguments } })
          const sampling = await remote.request('sampling/createMessage')
          remote.send({ jsonrpc: '2.0', id: sampling.id, result: { role: 'assistant', model: 'desktop-model', content: { type: 'text', text: SAMPLED } } })
          const sampled = await remote.response(callId)
          expect(sampled.error, remote.stderr()).toBeUndefined()
          expect(textOf(sampled.result)).toContain(SAMPLED)
        }
      } finally {
        await remote.stop()
      }
    }, 60_000)

    it('serves our CLI after mcp-auth login: mcp-auth tools, mcp-auth call, and a stdio host through mcp-auth proxy', async () => {
      const store = join(dir, 'cli', 'tokens.json')
      const login = await cliLoginInChromium(browser, mcpUrl, store, ADA)
      expect(login.code, login.stderr).toBe(0)
      const tools = await runCli(['tools', mcpUrl, '--no-browser', '--store', store])
      expect(tools.code, tools.stderr).toBe(0)
      expect(tools.stdout).toContain(server.call.tool)
      const call = await runCli(['call', mcpUrl, server.call.tool, JSON.stringify(server.call.arguments), '--no-browser', '--store', store])
      expect(call.code, call.stderr).toBe(0)
      expect(call.stdout).toContain(server.call.expect)
      // a stdio host (the SDK v2 client) through mcp-auth proxy with the stored login: the same
      // uses, the sampling request crossing gateway, proxy and stdio to the host and back
      const host = samplingClient('stdio host behind mcp-auth proxy')
      await host.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'proxy', mcpUrl, '--no-browser', '--store', store], stderr: 'pipe' }))
      try {
        await useEverything(host, server)
      } finally {
        await host.close()
      }
    }, 60_000)
  })
}

describe('mcp-auth gateway -- server-everything: two principals', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>
  beforeAll(async () => {
    gateway = await startGateway([join(BIN, 'mcp-server-everything')], [ADA, BOB], { prefix: 'mcp-auth-gateway-principals-' })
  }, 30_000)
  afterAll(async () => {
    await gateway?.stop()
  })

  /** The MCP_AUTH_* environment of the child that serves `client`, from server-everything's get-env tool. */
  async function childIdentity(client: Client): Promise<{ subject: string; clientId: string; scope: string }> {
    const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>
    return { subject: env['MCP_AUTH_SUBJECT']!, clientId: env['MCP_AUTH_CLIENT_ID']!, scope: env['MCP_AUTH_SCOPE']! }
  }

  for (const [kind, mode] of [
    ['stateful sessions', 'legacy'],
    ['stateless clients (2026-07-28)', { pin: '2026-07-28' }],
  ] as Array<[string, VersionNegotiationMode]>) {
    it(`gives two accounts, and one account through two clients, children of their own (${kind})`, async () => {
      const mcpUrl = new URL(`${gateway.origin}/mcp`)
      const signedIn = [
        await sdkClientSignedIn(mcpUrl, ADA, 'ada first client', { mode }),
        await sdkClientSignedIn(mcpUrl, BOB, 'bob client', { mode }),
        await sdkClientSignedIn(mcpUrl, ADA, 'ada second client', { mode }),
      ]
      try {
        for (const { transport } of signedIn) {
          if (mode === 'legacy') expect(transport.sessionId).toEqual(expect.any(String))
          else expect(transport.sessionId).toBeUndefined()
        }
        const [ada, bob, adaAgain] = await Promise.all(signedIn.map(({ client }) => childIdentity(client)))
        // each child was started for the token's principal: its client, its subject
        for (const [index, identity] of [ada, bob, adaAgain].entries()) {
          expect(identity!.clientId).toBe(signedIn[index]!.clientId)
          expect(identity!.subject).toEqual(expect.any(String))
          expect(identity!.scope.split(' ')).toContain('mcp')
        }
        expect(bob!.subject).not.toBe(ada!.subject)
        expect(adaAgain!.subject).toBe(ada!.subject)
        expect(new Set(signedIn.map(({ clientId }) => clientId)).size).toBe(3)
      } finally {
        await Promise.all(signedIn.map(({ client }) => client.close()))
      }
    }, 60_000)
  }
})
