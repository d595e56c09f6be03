import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { Agent, fetch as undiciFetch } from 'undici'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'
import { formLogin } from '../../helpers/form-login.js'
import { startCli, stopChild } from '../../helpers/cli-process.js'
import { pkcePair } from '../../helpers/pkce-pair.js'

/** A local HTTPS server publishing client ID metadata documents, with a throwaway certificate. */
let documents: Server
let docOrigin: string
let ca: string
let certDir: string
const served = new Map<string, { body: unknown; headers?: Record<string, string> }>()
const hits = new Map<string, number>()

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'mcp-auth-cimd-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  )
  ca = await readFile(join(certDir, 'cert.pem'), 'utf8')
  documents = createServer({ key: await readFile(join(certDir, 'key.pem')), cert: ca }, (req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1)
    const doc = served.get(req.url!)
    if (doc === undefined) {
      res.statusCode = 404
      res.end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json', ...doc.headers })
    res.end(JSON.stringify(doc.body))
  })
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve))
  docOrigin = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`
})

afterAll(async () => {
  documents.closeAllConnections()
  await new Promise((resolve) => documents.close(resolve))
  await rm(certDir, { recursive: true, force: true })
})

function publish(path: string, body: Record<string, unknown>, headers?: Record<string, string>): string {
  const clientId = `${docOrigin}${path}`
  served.set(path, { body: { client_id: clientId, ...body }, ...(headers ? { headers } : {}) })
  return clientId
}

async function authorizeUrl(s: RunningAuthServer, clientId: string, redirectUri: string, challenge: string): Promise<string> {
  return `${s.origin}/authorize?${new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'mcp',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`
}

describe('client ID metadata documents in the development setting (private addresses allowed)', () => {
  let s: RunningAuthServer
  beforeAll(async () => {
    const agent = new Agent({ connect: { ca } })
    s = await startAuthServer({
      clientIdMetadataDocuments: { allowPrivateAddresses: true },
      fetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
    })
    await s.as.accounts.setUser('frank', 'frank password 1')
  })
  afterAll(() => s.stop(true))

  it('uses a fetched document as the client, with its port-less loopback redirect on any port', async () => {
    const clientId = publish(
      '/cimd/good.json',
      { client_name: 'Document Client', redirect_uris: ['http://localhost/callback'], token_endpoint_auth_method: 'none' },
      { 'cache-control': 'max-age=300' },
    )
    const { verifier, challenge } = await pkcePair()
    const redirectUri = 'http://localhost:61234/callback'
    const { callback, pages } = await formLogin(await authorizeUrl(s, clientId, redirectUri, challenge), { username: 'frank', password: 'frank password 1', redirectUri })
    expect(pages).toEqual(['login', 'consent'])
    const code = callback.searchParams.get('code')!
    const token = await fetch(`${s.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier, redirect_uri: redirectUri }),
    })
    expect(token.status).toBe(200)
    expect(((await token.json()) as { access_token: string }).access_token).toBeTypeOf('string')
    // Cached per its Cache-Control: one fetch served the authorization and the token request.
    expect(hits.get('/cimd/good.json')).toBe(1)
  })

  it('refuses a document whose client_id is not its own URL, on an error page', async () => {
    const path = '/cimd/impostor.json'
    served.set(path, { body: { client_id: 'https://someone-else.example/client.json', redirect_uris: ['http://localhost/callback'], token_endpoint_auth_method: 'none' } })
    const response = await fetch(await authorizeUrl(s, `${docOrigin}${path}`, 'http://localhost/callback', (await pkcePair()).challenge), { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(await response.text()).toContain('client_id does not match')
  })

  it('refuses a document with a redirect URI outside the policy', async () => {
    const clientId = publish('/cimd/insecure-redirect.json', { redirect_uris: ['http://app.example/callback'], token_endpoint_auth_method: 'none' })
    const response = await fetch(await authorizeUrl(s, clientId, 'http://app.example/callback', (await pkcePair()).challenge), { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(await response.text()).toContain('http://app.example/callback must use https, or http on a loopback host')
  })

  it('refuses a document that asks for a shared secret', async () => {
    const clientId = publish('/cimd/secret.json', { redirect_uris: ['http://localhost/callback'], token_endpoint_auth_method: 'client_secret_basic' })
    const response = await fetch(await authorizeUrl(s, clientId, 'http://localhost/callback', (await pkcePair()).challenge), { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('must not use shared-secret')
  })
})

describe('client ID metadata documents by default', () => {
  // The server runs as a child trusting the test certificate authority (NODE_EXTRA_CA_CERTS), so
  // the only thing that can stop the fetch is the private-address protection.
  async function authorizeStatus(allowPrivateAddresses: boolean, path: string): Promise<{ status: number; body: string }> {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-auth-cimd-as-'))
    const { writeFile } = await import('node:fs/promises')
    await writeFile(join(dir, 'config.json'), JSON.stringify({ clientIdMetadataDocuments: { allowPrivateAddresses } }))
    const { child, url } = await startCli(['auth-server', '--data-dir', dir, '--config', join(dir, 'config.json')], { env: { NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem') } })
    try {
      const clientId = publish(path, { redirect_uris: ['http://localhost/callback'], token_endpoint_auth_method: 'none' })
      const response = await fetch(
        `${url}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://localhost/callback', scope: 'mcp', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
        { redirect: 'manual' },
      )
      return { status: response.status, body: await response.text() }
    } finally {
      await stopChild(child)
      await rm(dir, { recursive: true, force: true })
    }
  }

  it('never fetches a document from a private or loopback address', async () => {
    const refused = await authorizeStatus(false, '/cimd/private.json')
    expect(refused.status).toBe(400)
    expect(refused.body).toContain('invalid_client')
    expect(hits.get('/cimd/private.json')).toBeUndefined()
    // Control: the same server trusting the same certificate fetches it once allowed.
    const allowed = await authorizeStatus(true, '/cimd/private-allowed.json')
    expect(allowed.status).toBe(303)
    expect(hits.get('/cimd/private-allowed.json')).toBe(1)
  })
})
