import { resolve } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { restoreEmbeddedStore } from '../../storage/embedded/restore-store.js'
import { StoreDamagedError } from '../../storage/embedded/store-damaged-error.js'
import { UsageError, type Command } from '../command.js'
import { recordCounts } from '../record-counts.js'
import { shellWord } from '../shell-word.js'

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'put a backup of the embedded store (mcp-auth backup) into a data directory',
  usage: `
Usage: mcp-auth restore --from DIR [--data-dir DATA]

Checks every line of the backup in DIR, then copies it into DATA (created 0700, files 0600): its
store and its key files (secrets.json, jwks.json). Refuses while a server runs on DATA, when DATA
holds a store already (move its ${defaults.storage.dbFile}, ${defaults.storage.snapshotFile} and ${defaults.storage.journalFile}.* away first)
or other key files, and when DIR is not a backup. The store's marker is written last: an
interrupted restore leaves nothing a server would start on.

Options:
  --from DIR       the backup (a directory mcp-auth backup wrote)
  --data-dir DATA  data directory to restore into (default ${defaults.storage.dataDir})
  -h, --help       show this help
`,
  options: { from: { type: 'string' }, 'data-dir': { type: 'string' } },
  async run(values) {
    if (typeof values.from !== 'string' || values.from === '') throw new UsageError('--from DIR is required')
    const dataDir = (values['data-dir'] as string | undefined) ?? defaults.storage.dataDir
    const restored = await restoreEmbeddedStore(values.from, dataDir).catch((error: unknown) => {
      // the store's own wording is for a server refusing to start: here the backup is what is damaged
      if (error instanceof StoreDamagedError)
        throw new Error(
          `${values.from} is not a whole backup: ${error.file}${error.line === undefined ? '' : ` line ${error.line}`} is damaged (${error.reason}); nothing was restored`,
          {
            cause: error,
          },
        )
      throw error
    })
    process.stdout.write(
      [
        `restored ${values.from} into ${dataDir}`,
        `  records: ${recordCounts(restored.models)}`,
        `  collections: ${recordCounts(restored.collections)}`,
        `Next: start the server on it, e.g. mcp-auth start --data-dir ${shellWord(resolve(dataDir))}`,
        '',
      ].join('\n'),
    )
    return 0
  },
}
