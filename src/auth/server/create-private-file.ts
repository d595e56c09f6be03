import { randomBytes } from 'node:crypto'
import { link, open, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ensurePrivateDir } from '../../storage/private-file.js'

/**
 * Creates `file` (0600) with `contents` only if it does not exist yet; true when this call created
 * it. For files several processes may create at once on one shared data directory (nodes of a
 * deployment starting together): the contents are written and fsynced to a temp file, which is then
 * hard-linked to the name, an atomic step that fails when the name exists. So exactly one writer
 * wins, and the others, told false, read a complete file (never a torn one, never overwritten).
 * The file system must support hard links (local disks and NFS do).
 */
export async function createPrivateFile(file: string, contents: string): Promise<boolean> {
  const dir = dirname(file)
  await ensurePrivateDir(dir)
  // The name writePrivateFile uses for its temp files, so removeStaleTempFiles finds crash leftovers.
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(tmp, 'wx', 0o600)
  try {
    await handle.writeFile(contents)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await link(tmp, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await rm(tmp, { force: true })
  }
  const dirHandle = await open(dir, 'r')
  try {
    await dirHandle.sync()
  } finally {
    await dirHandle.close()
  }
  return true
}
