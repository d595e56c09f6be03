/**
 * Issue 17: the CLI as a workload — `mcp-auth call` with a JWT the platform issued, from a file or
 * an environment variable, against `mcp-auth start` configured to trust that platform (the JWT
 * bearer grant), and a refused assertion reported without a browser or a retry.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startMainJob } from '../helpers/cli-process.js'

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const PLATFORM = 'https://platform.example.com'
let dir: string
let key: CryptoKey
let origin: string
let stop: () => Promise<void>

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-auth-jwt-bearer-cli-'))
  const pair = await generateKeyPair('ES256')
  key = pair.privateKey
  const config = join(dir, 'auth-server.json')
  await writeFile(
    config,
    JSON.stringify({
      clients: [{ client_id: 'nightly-job', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [], redirect_uris: [], scope: 'mcp' }],
      jwtBearer: {
        issuers: [
          {
            issuer: PLATFORM,
            jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'p1', alg: 'ES256' }] },
            subjects: { 'system:serviceaccount:jobs:nightly': { client: 'nightly-job' } },
          },
        ],
      },
    }),
  )
  const job = await startMainJob('jwt bearer cli password', 'mcp-auth-jwt-bearer-cli-job-', ['--config', config])
  origin = job.origin
  stop = job.stop
})
afterAll(async () => {
  await stop()
  await rm(dir, { recursive: true, force: true })
})

function platformToken(audience = origin): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: 'system:serviceaccount:jobs:nightly', aud: audience, jti: randomUUID(), iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(PLATFORM)
    .sign(key)
}

describe('mcp-auth call as a workload (JWT bearer grant)', () => {
  it('calls a tool with the assertion from a file, and from an environment variable', async () => {
    const file = join(dir, 'token.jwt')
    await writeFile(file, await platformToken())
    const fromFile = await runCli(['call', `${origin}/mcp`, 'whoami', '--client-id', 'nightly-job', '--jwt-bearer-assertion-file', file, '--store', join(dir, 'from-file.json')])
    expect(fromFile.stderr).not.toContain('open this URL')
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.stdout).toContain('nightly-job')
    // each run its own token store: machine tokens are kept there until they expire (issue 28)
    const fromEnv = await runCli(
      ['call', `${origin}/mcp`, 'whoami', '--client-id', 'nightly-job', '--jwt-bearer-assertion-env', 'PLATFORM_TOKEN', '--store', join(dir, 'from-env.json')],
      {
        env: { PLATFORM_TOKEN: await platformToken() },
      },
    )
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
  })

  it('reports a refused assertion with the reason, without opening a browser', async () => {
    const refused = await runCli(
      ['call', `${origin}/mcp`, 'whoami', '--client-id', 'nightly-job', '--jwt-bearer-assertion-env', 'PLATFORM_TOKEN', '--store', join(dir, 'refused.json')],
      {
        env: { PLATFORM_TOKEN: await platformToken('https://elsewhere.example.com') },
      },
    )
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('invalid_grant')
    expect(refused.stderr).toContain('another audience')
    expect(refused.stderr).not.toContain('open this URL')
  })
})
