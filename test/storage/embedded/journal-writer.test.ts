import { openSync, writeFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JournalWriter } from '../../../src/storage/embedded/journal-writer.js'
import { encodeLine } from '../../../src/storage/embedded/record-line.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-writer-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const line = (id: string): string => encodeLine(`["y","c",${JSON.stringify(id)}]`)

describe('JournalWriter', () => {
  it('commits the writes of one turn of the event loop as one batch, closed by a commit line', async () => {
    const file = join(dir, 'j')
    writeFileSync(file, '')
    const writer = new JournalWriter(openSync(file, 'a'), 0)
    await Promise.all([writer.append(line('a')), writer.append(line('b')), writer.append(line('c'))])
    await writer.append(line('d'))
    await writer.close()
    expect((await readFile(file, 'utf8')).split('\n').map((each) => each.slice(9))).toEqual([
      '["y","c","a"]',
      '["y","c","b"]',
      '["y","c","c"]',
      '["c",3]',
      '["y","c","d"]',
      '["c",1]',
      '',
    ])
  })

  it('rejects the writes of a batch that failed, and sends their lines again with the next batch', async () => {
    const bad = join(dir, 'read-only')
    writeFileSync(bad, '')
    const good = join(dir, 'good')
    writeFileSync(good, '')
    // a descriptor opened for reading: every write to it fails (EBADF)
    const writer = new JournalWriter(openSync(bad, 'r'), 0)
    await expect(writer.append(line('lost?'))).rejects.toThrow(/EBADF/)
    expect(writer.failure).toBeDefined()
    await expect(writer.flushed()).rejects.toThrow(/EBADF/)
    writer.switchTo(openSync(good, 'a'), 0)
    await writer.append(line('next'))
    expect(writer.failure).toBeUndefined()
    await writer.close()
    expect((await readFile(good, 'utf8')).split('\n').map((each) => each.slice(9))).toEqual(['["y","c","lost?"]', '["y","c","next"]', '["c",2]', ''])
  })
})
