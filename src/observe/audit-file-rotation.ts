import { readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** The rotated files of `file` (`<file>.1` newest … `<file>.N`), by number, with their paths. */
export async function rotatedAuditFiles(file: string): Promise<Array<{ n: number; path: string }>> {
  const dir = dirname(file)
  const prefix = `${basename(file)}.`
  const found: Array<{ n: number; path: string }> = []
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue
    const suffix = name.slice(prefix.length)
    if (!/^[1-9][0-9]{0,5}$/.test(suffix)) continue
    found.push({ n: Number(suffix), path: join(dir, name) })
  }
  return found.sort((a, b) => a.n - b.n)
}

/**
 * Moves `file` to `<file>.1` after shifting each rotated file up one number; a file that would go
 * past `maxFiles` is deleted instead. A rename keeps the file's mode (0600) and inode, so a reader
 * that holds it open (a follower, a query's cursor) still finds it.
 */
export async function rotateAuditFile(file: string, maxFiles: number): Promise<void> {
  const rotated = await rotatedAuditFiles(file)
  for (const { n, path } of rotated.reverse()) {
    if (n >= maxFiles) await rm(path, { force: true })
    else await rename(path, `${file}.${n + 1}`)
  }
  if (maxFiles >= 1) await rename(file, `${file}.1`).catch(ignoreMissing)
  else await rm(file, { force: true })
}

/**
 * Deletes the rotated files of `file` whose last write is older than `retentionMs`, and those past
 * `maxFiles`; the live file stays whatever its age. Returns how many were deleted.
 */
export async function sweepAuditFiles(file: string, retentionMs: number, maxFiles: number, now = Date.now()): Promise<number> {
  let deleted = 0
  for (const { n, path } of await rotatedAuditFiles(file)) {
    const info = await stat(path).catch(() => undefined)
    if (info === undefined) continue
    if (n > maxFiles || now - info.mtimeMs > retentionMs) {
      await rm(path, { force: true })
      deleted += 1
    }
  }
  return deleted
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}
