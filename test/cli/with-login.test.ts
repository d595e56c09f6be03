/**
 * The CLI's login helper set-up (issue 15): a login an MCP request needs on the way runs outside
 * that request (`withLogin`), so an abandoned one ends with its own message ("login not completed
 * within …") and not as the request's timeout. Against `mcp-auth start` run as its own process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpOAuth } from '../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../src/auth/client/token-store.js'
import { connectClient } from '../../src/cli/client-auth.js'
import { withLogin } from '../../src/cli/with-login.js'
import { startMainJob } from '../helpers/cli-process.js'
import { formHandoff } from '../helpers/form-handoff.js'

const PASSWORD = 'client auth password 1'
let main: Awaited<ReturnType<typeof startMainJob>>
let dir: string

beforeAll(async () => {
  main = await startMainJob(PASSWORD, 'mcp-auth-client-auth-')
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-client-auth-store-'))
})
afterAll(async () => {
  await main?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe('withLogin', () => {
  it('ends a step-up login nobody completes with "login not completed within …", not with the request timeout', async () => {
    const store = new FileTokenStore(join(dir, 'abandoned.json'))
    const url = `${main.origin}/mcp`
    // logged in with the scope mcp only: admin_stats then asks for mcp:admin
    await new McpOAuth(url, { store, handoff: formHandoff({ password: PASSWORD }) }).login()
    const handedOff: URL[] = []
    const auth = new McpOAuth(url, { store, loginOutsideFetch: true, loginTimeoutMs: 1_000, handoff: (authorizationUrl) => void handedOff.push(authorizationUrl) })
    const client = await connectClient(url, auth, { requestTimeoutMs: 300 })
    try {
      await expect(withLogin(auth, () => client.callTool('admin_stats', {}))).rejects.toThrow(/^login not completed within 1 s: the browser did not come back from the login page$/)
      expect(handedOff).toHaveLength(1)
      expect(handedOff[0]!.searchParams.get('scope')?.split(' ')).toContain('mcp:admin')
    } finally {
      await client.close()
    }
  })
})
