#!/usr/bin/env node
// The client under test for `conformance client`: built on our McpClient, Streamable HTTP client
// transport and login helper (dist/). The suite passes the server URL as the last argument and
// the scenario in MCP_CONFORMANCE_SCENARIO (context, e.g. pre-registered credentials, in
// MCP_CONFORMANCE_CONTEXT). The browser hand-off is headless: the authorization URL is fetched
// and its redirect followed to our loopback callback, as a browser would.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpClient } from '../../dist/client/index.js'
import { StreamableHttpClientTransport } from '../../dist/transports/http-client/index.js'
import { McpOAuth } from '../../dist/auth/client/mcp-oauth.js'
import { ClientCredentialsAuth } from '../../dist/auth/client/client-credentials-auth.js'
import { JwtBearerAuth } from '../../dist/auth/client/jwt-bearer-auth.js'
import { FileTokenStore } from '../../dist/auth/client/token-store.js'
import { crossAppAccessToken } from '../../dist/auth/client/cross-app-access.js'

const serverUrl = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {}
const CIMD_URL = 'https://conformance-test.local/client-metadata.json'

async function headlessHandoff(url) {
  const response = await fetch(url, { redirect: 'manual' })
  const location = response.headers.get('location')
  await response.body?.cancel()
  if (location === null) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`)
  await (await fetch(new URL(location, url))).text()
}

async function connect(fetchImpl, capabilities) {
  const client = new McpClient({ name: 'mcp-auth-conformance-client', version: '0.1.0' }, capabilities ? { capabilities } : {})
  await client.connect(new StreamableHttpClientTransport(serverUrl, fetchImpl ? { fetch: fetchImpl } : {}))
  return client
}

/** Arguments for a tool: a small value of the declared type for each required property. */
function sampleArguments(schema) {
  const args = {}
  for (const name of schema?.required ?? []) {
    const type = schema.properties?.[name]?.type
    args[name] = type === 'number' || type === 'integer' ? 2 : type === 'boolean' ? true : 'x'
  }
  return args
}

/** Prompt arguments: a short string for each required one. */
function samplePromptArguments(prompt) {
  return Object.fromEntries((prompt.arguments ?? []).filter((argument) => argument.required).map((argument) => [argument.name, 'x']))
}

/**
 * What a client does with a server, per scenario: only what the server declared (the initialize
 * scenario's server offers no tools), the calls the scenario asks for in its context, or every
 * listed tool with arguments that fit its schema.
 */
async function exercise(client) {
  const capabilities = client.serverCapabilities ?? {}
  if (capabilities.tools === undefined) return
  const { tools } = await client.listTools()
  if (scenario === 'json-schema-2020-12-preservation') {
    // hand the focal tool's inputSchema back as we received it
    const focal = tools.find((tool) => tool.name !== 'json_schema_echo')
    await client.callTool('json_schema_echo', { schema: focal.inputSchema })
    return
  }
  if (Array.isArray(context.toolCalls)) {
    for (const call of context.toolCalls) await client.callTool(call.name, call.arguments)
    return
  }
  const callEveryTool = ['tools_call', 'sse-retry', 'http-standard-headers', 'http-invalid-tool-headers', 'sep-2322-client-request-state']
  if (!callEveryTool.includes(scenario)) return
  // sse-retry: the tool's POST stream closes after a priming event (retry: 500); the answer comes
  // on the GET that resumes it with Last-Event-ID. sep-2322: calls run side by side, so one
  // tool's input rounds must not leak into another's.
  await Promise.all(tools.map((tool) => client.callTool(tool.name, sampleArguments(tool.inputSchema))))
  if (scenario !== 'http-standard-headers') return
  if (capabilities.resources !== undefined) {
    const { resources } = await client.listResources()
    if (resources[0] !== undefined) await client.readResource(resources[0].uri)
  }
  if (capabilities.prompts !== undefined) {
    const { prompts } = await client.listPrompts()
    if (prompts[0] !== undefined) await client.getPrompt(prompts[0].name, samplePromptArguments(prompts[0]))
  }
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-auth-conformance-'))
try {
  if (scenario === 'auth/client-credentials-basic' || scenario === 'auth/client-credentials-jwt') {
    const auth = new ClientCredentialsAuth(serverUrl, {
      clientId: context.client_id,
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      ...(context.private_key_pem ? { privateKeyPem: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' } : {}),
    })
    const client = await connect(auth.fetch)
    await client.listTools()
    await client.close()
  } else if (scenario === 'auth/wif-jwt-bearer') {
    // the workload's platform token (here from the scenario's context), exchanged with the JWT bearer grant
    const auth = new JwtBearerAuth(serverUrl, { clientId: context.client_id, assertion: () => context.valid_jwt })
    const client = await connect(auth.fetch)
    await client.listTools()
    await client.close()
  } else if (scenario === 'auth/cross-app-access-complete-flow') {
    const token = await crossAppAccessToken(serverUrl, {
      idpTokenEndpoint: context.idp_token_endpoint,
      idpIssuer: context.idp_issuer,
      idpClientId: context.idp_client_id,
      idToken: context.idp_id_token,
      clientId: context.client_id,
      clientSecret: context.client_secret,
    })
    const withToken = (input, init) => {
      const headers = new Headers(init?.headers)
      headers.set('authorization', `Bearer ${token}`)
      return fetch(input, { ...init, headers })
    }
    const client = await connect(withToken)
    await client.listTools()
    await client.callTool('test-tool', {})
    await client.close()
  } else if (scenario.startsWith('auth/')) {
    const auth = new McpOAuth(serverUrl, {
      store: new FileTokenStore(join(dir, 'tokens.json')),
      handoff: headlessHandoff,
      clientName: 'mcp-auth-conformance-client',
      clientMetadataDocument: CIMD_URL,
      // the DPoP scenarios' resource metadata does not say it takes DPoP (only their authorization
      // server does): by default our client would ask for Bearer there (issue 28), so they ask for it
      ...(scenario.startsWith('auth/dpop') ? { dpop: 'always' } : {}),
      ...(context.client_id ? { anyIssuerClient: { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) } } : {}),
    })
    const client = await connect(auth.fetch)
    await client.listTools()
    await client.callTool('test-tool', {})
    await client.close()
  } else if (scenario === 'elicitation-sep1034-client-defaults') {
    const client = new McpClient({ name: 'mcp-auth-conformance-client', version: '0.1.0' }, { capabilities: { elicitation: { form: { applyDefaults: true } } } })
    client.setElicitationHandler(async () => ({ action: 'accept', content: {} }))
    await client.connect(new StreamableHttpClientTransport(serverUrl))
    await client.callTool('test_client_elicitation_defaults', {})
    await client.close()
  } else {
    const client = new McpClient({ name: 'mcp-auth-conformance-client', version: '0.1.0' })
    // sep-2322 asks questions through input-required rounds: answered like any elicitation
    client.setElicitationHandler(async () => ({ action: 'accept', content: { confirmed: true } }))
    await client.connect(new StreamableHttpClientTransport(serverUrl))
    await exercise(client)
    await client.close()
  }
} catch (error) {
  process.stderr.write(`conformance client (${scenario}): ${error?.stack ?? error}\n`)
  process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
