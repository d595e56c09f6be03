// Issue 29, item 2: the administration operations (admin/) refuse with an AdminError whose code a
// surface can act on (the coming admin API), and whose message is the one the CLI always printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AdminError } from '../../../src/auth/server/admin/admin-error.js'
import { startAuthServer, type RunningAuthServer } from '../../helpers/auth-server.js'

let s: RunningAuthServer
beforeAll(async () => {
  s = await startAuthServer({
    clients: [{ client_id: 'configured-app', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/callback'] }],
  })
})
afterAll(() => s.stop(true))

async function refusal(operation: Promise<unknown>): Promise<AdminError> {
  const error = await operation.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(error).toBeInstanceOf(AdminError)
  return error as AdminError
}

describe('administration refusals', () => {
  it('refuses to remove a configured client: configured_client', async () => {
    const error = await refusal(s.as.removeClient('configured-app'))
    expect(error.code).toBe('configured_client')
    expect(error.message).toBe('configured-app is a configured client: remove it from the configuration instead')
  })

  it('refuses to add a client whose client_id is taken: client_exists', async () => {
    const metadata = { client_id: 'added-twice', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] }
    await s.as.addClient(metadata)
    const error = await refusal(s.as.addClient(metadata))
    expect(error.code).toBe('client_exists')
    expect(error.message).toBe('a client with client_id added-twice already exists')
  })

  it('refuses the grants of an unknown account, and deleting it: unknown_account', async () => {
    for (const operation of [s.as.grants.list({ username: 'nobody' }), s.as.deleteUser('nobody')]) {
      const error = await refusal(operation)
      expect(error.code).toBe('unknown_account')
      expect(error.message).toBe('no account named nobody')
    }
  })
})
