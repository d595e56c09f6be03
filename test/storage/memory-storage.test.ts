import { createMemoryStorage } from '../../src/storage/memory-storage.js'
import { describeStorageContract } from './storage-contract.js'

describeStorageContract('createMemoryStorage', async (clock) => createMemoryStorage({ now: () => clock.now }), { revisions: true })
