/**
 * Ending a grant of a delegated login ends the upstream session too (issue 15: "grants revoke
 * (every token of the grant, cascading upstream as a logout does)"): through the library on the
 * running server, and through `mcp-auth grants revoke` on a stopped one given its configuration,
 * where the upstream revocation must be done before the command exits.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { McpOAuth } from '../../../src/auth/client/mcp-oauth.js'
import { FileTokenStore } from '../../../src/auth/client/token-store.js'
import { runCli } from '../../helpers/cli-process.js'
import { formLogin } from '../../helpers/form-login.js'
import { startUpstreamPair, upstreamRefreshTokenCount } from '../../helpers/upstream-pair.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Our stack delegating to an upstream, and a client logged in through both; its client id. */
async function delegatedLogin(username: string) {
  const pair = await startUpstreamPair({ user: { username, password: `${username} password 1` } })
  cleanups.push(() => pair.stop())
  const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-grant-upstream-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const store = new FileTokenStore(join(dir, 'tokens.json'))
  const auth = new McpOAuth(`${pair.stack.origin}/mcp`, {
    store,
    async handoff(url) {
      const result = await formLogin(url, { username, password: `${username} password 1`, redirectUri: url.searchParams.get('redirect_uri')! })
      await fetch(result.callback)
    },
  })
  await auth.login()
  const clientId = (await store.getClient(pair.stack.origin))!.client_id
  return { pair, dir, clientId, upstreamRefreshTokens: await upstreamRefreshTokenCount(pair) }
}

describe('ending a grant of a delegated login', () => {
  it('in the library, revokes the upstream session too', async () => {
    const { pair, clientId, upstreamRefreshTokens } = await delegatedLogin('uma')
    expect(await upstreamRefreshTokens()).toBe(1)
    expect(await pair.stack.as.grants.revokeAll({ clientId })).toBe(1)
    expect(await upstreamRefreshTokens()).toBe(0)
  })

  it('with mcp-auth grants revoke on the stopped server and its configuration, revokes the upstream session before the command exits', async () => {
    const { pair, dir, clientId, upstreamRefreshTokens } = await delegatedLogin('vic')
    expect(await upstreamRefreshTokens()).toBe(1)
    // the server's data directory as it is when the server has stopped (its lock file left out)
    const dataDir = join(dir, 'server-data')
    await cp(pair.stack.dataDir, dataDir, { recursive: true, filter: (source) => !source.endsWith('.lock') })
    const config = join(dir, 'config.json')
    await writeFile(
      config,
      JSON.stringify({
        issuer: pair.stack.origin,
        upstream: { issuer: pair.upstream.issuer, allowPrivateAddresses: true, clientId: 'our-as', clientSecret: 'our-as-secret-0123456789' },
      }),
    )
    // `--client=<id>`: a generated client id may begin with '-'
    const revoke = await runCli(['grants', 'revoke', `--client=${clientId}`, '--data-dir', dataDir, '--config', config])
    expect(revoke.stdout).toBe('1 grant ended\n')
    expect(revoke.code).toBe(0)
    expect(await upstreamRefreshTokens()).toBe(0)
  })
})
