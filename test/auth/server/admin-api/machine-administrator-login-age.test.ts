// Issue 32: designating a machine administrator (a client registered with the admin API's scope)
// is as sensitive as making an administrator: a person whose sign-in is older than the sensitive
// window is asked to sign in again (RFC 9470), and nothing is registered; other clients are not.
import { describe, expect, it } from 'vitest'
import { defaults } from '../../../../src/config/defaults.js'
import { InsufficientUserAuthenticationError } from '../../../../src/auth/errors.js'
import { AdminAuthority, type AdminCaller } from '../../../../src/auth/server/admin-api/admin-caller.js'
import type { AdminRequest, AdminServices } from '../../../../src/auth/server/admin-api/admin-context.js'
import { clientsOperations } from '../../../../src/auth/server/admin-api/handlers/clients.js'

const a = defaults.authServer.admin
const now = 1_800_000_000_000

function request(scope: string | undefined, added: unknown[]): AdminRequest {
  const authority = new AdminAuthority({ bearer: {} as never, accounts: {} as never, clientMayAct: async () => true, now: () => now })
  const clients = {
    add: async (metadata: unknown) => {
      added.push(metadata)
      return { client_id: 'new-client' }
    },
    get: async () => ({ client_id: 'new-client', origin: 'administrator', configured: false, blocked: false }),
  }
  // signed in within the hour (any action), not within the sensitive minutes
  const caller = { kind: 'person', account: {}, clientId: 'console', authTime: now / 1000 - a.sensitiveLoginAgeSeconds - 60, token: {} } as unknown as AdminCaller
  return {
    caller,
    params: {},
    query: {},
    body: { client_name: 'Automation', grant_types: ['client_credentials'], ...(scope !== undefined ? { scope } : {}) },
    ifMatch: undefined,
    services: { authority, administration: { clients }, issuer: new URL('https://auth.example') } as unknown as AdminServices,
  }
}

describe('createClient', () => {
  it('asks a person for a fresh sign-in before registering a client with the admin scope', async () => {
    const added: unknown[] = []
    const refused = clientsOperations['createClient']!(request(`mcp ${a.scope}`, added))
    await expect(refused).rejects.toBeInstanceOf(InsufficientUserAuthenticationError)
    await expect(refused).rejects.toMatchObject({ status: 401 })
    expect(added).toEqual([])
  })

  it('registers any other client on the same sign-in', async () => {
    const added: unknown[] = []
    const answer = await clientsOperations['createClient']!(request('mcp', added))
    expect(answer.status).toBe(201)
    expect(added).toHaveLength(1)
  })
})
