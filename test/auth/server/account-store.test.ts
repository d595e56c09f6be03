// Issue 27, item 8: nodes of one deployment starting at once (or administrators adding the same
// name at once) end with one account, and only the process that created it knows its password.
import { describe, expect, it } from 'vitest'
import { AccountStore } from '../../../src/auth/server/stores/account-store.js'
import { createMemoryStorage } from '../../../src/storage/memory-storage.js'

describe('AccountStore', () => {
  it('createUser: of ten creations of one name at once, exactly one wins, and its password is the one that works', async () => {
    const accounts = new AccountStore(createMemoryStorage().records)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => accounts.createUser('demo', `password number ${i}`, {}, ['mcp'])))
    const winners = results.flatMap((account, i) => (account === undefined ? [] : [i]))
    expect(winners).toHaveLength(1)
    expect(await accounts.list()).toHaveLength(1)
    expect((await accounts.authenticate('demo', `password number ${winners[0]}`))?.scopes).toEqual(['mcp'])
  })

  it('createUser leaves an existing account as it is', async () => {
    const accounts = new AccountStore(createMemoryStorage().records)
    await accounts.setUser('demo', 'the first password', {}, ['mcp', 'mcp:admin'])
    expect(await accounts.createUser('demo', 'another password', {}, ['mcp'])).toBeUndefined()
    expect((await accounts.authenticate('demo', 'the first password'))?.scopes).toEqual(['mcp', 'mcp:admin'])
  })

  it('setUser: ten additions of one new name at once make one account', async () => {
    const accounts = new AccountStore(createMemoryStorage().records)
    await Promise.all(Array.from({ length: 10 }, (_, i) => accounts.setUser('alice', `password number ${i}`)))
    expect(await accounts.list()).toHaveLength(1)
  })
})
