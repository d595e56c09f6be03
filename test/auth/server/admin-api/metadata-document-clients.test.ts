// Issue 32: a client known by its client ID metadata document (never stored as a client) is listed,
// shows its last use and what it holds, and is blocked like any other: its grants end, and it gets
// no authorization, without its document being fetched again.
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminCall, adminToken } from '../../../helpers/admin-api.js'
import { startAuthServer, type RunningAuthServer } from '../../../helpers/auth-server.js'
import { formLogin } from '../../../helpers/form-login.js'
import { pkcePair } from '../../../helpers/pkce-pair.js'

const root = { username: 'root', password: 'root password 1' }
const frank = { username: 'frank', password: 'frank password 1' }
const REDIRECT = 'http://localhost:61234/callback'

let certDir: string
let documents: Server
let docOrigin: string
let fetched = 0
let s: RunningAuthServer
let token: string

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'mcp-auth-cimd-admin-'))
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
  const ca = await readFile(join(certDir, 'cert.pem'), 'utf8')
  documents = createServer({ key: await readFile(join(certDir, 'key.pem')), cert: ca }, (req, res) => {
    fetched += 1
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
    res.end(
      JSON.stringify({ client_id: `${docOrigin}${req.url}`, client_name: 'Document Client', redirect_uris: ['http://localhost/callback'], token_endpoint_auth_method: 'none' }),
    )
  })
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve))
  docOrigin = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`
  const agent = new Agent({ connect: { ca } })
  s = await startAuthServer({
    clientIdMetadataDocuments: { allowPrivateAddresses: true },
    fetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
  })
  await s.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await s.as.accounts.setUser(frank.username, frank.password)
  token = (await adminToken(s.origin, root)).access_token
})
afterAll(async () => {
  await s?.stop(true)
  documents?.closeAllConnections()
  await new Promise((resolve) => documents?.close(resolve))
  await rm(certDir, { recursive: true, force: true })
})

async function authorizeUrl(clientId: string): Promise<{ url: string; verifier: string }> {
  const { verifier, challenge } = await pkcePair()
  const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'mcp', code_challenge: challenge, code_challenge_method: 'S256' })
  return { url: `${s.origin}/authorize?${query}`, verifier }
}

describe('admin API: a client ID metadata document client', () => {
  it('is listed with its origin, name and last use, holds its grant, and once blocked gets nothing', async () => {
    const clientId = `${docOrigin}/cimd/app.json`
    const { url, verifier } = await authorizeUrl(clientId)
    const { callback } = await formLogin(url, { ...frank, redirectUri: REDIRECT })
    const issued = await fetch(`${s.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        client_id: clientId,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      }),
    })
    expect(issued.status).toBe(200)
    expect(((await issued.json()) as { access_token: string }).access_token).toBeTypeOf('string')

    const listed = await adminCall(s.origin, token, 'GET', '/clients?origin=metadata-document')
    expect(listed.body.items).toEqual([
      expect.objectContaining({ client_id: clientId, client_name: 'Document Client', origin: 'metadata-document', token_endpoint_auth_method: 'none', blocked: false }),
    ])
    expect(Date.now() - Date.parse(listed.body.items[0].last_used_at)).toBeLessThan(60_000)
    const path = `/clients/${encodeURIComponent(clientId)}`
    const holds = await adminCall(s.origin, token, 'GET', `${path}/grants`)
    expect(holds.body.items).toEqual([expect.objectContaining({ username: 'frank', client_id: clientId })])

    const blocked = await adminCall(s.origin, token, 'POST', `${path}/block`)
    expect(blocked.body).toMatchObject({ grants_ended: 1, client: { origin: 'metadata-document', blocked: true } })
    const before = fetched
    const page = await fetch((await authorizeUrl(clientId)).url, { redirect: 'manual' })
    expect(page.status).toBe(400)
    expect(await page.text()).toContain('blocked')
    expect(fetched).toBe(before)
    expect((await adminCall(s.origin, token, 'GET', `${path}/grants`)).body.items).toEqual([])

    expect((await adminCall(s.origin, token, 'DELETE', `${path}/block`)).body).toMatchObject({ client_id: clientId, blocked: false })
    const again = await fetch((await authorizeUrl(clientId)).url, { redirect: 'manual' })
    expect(again.status).toBe(303)
  })
})
