import { createReadStream } from 'node:fs'
import { chmod, link, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, basename } from 'node:path'
import { randomBytes } from 'node:crypto'
import { syncFd, withFd, writeAllFd } from './fd.js'

/**
 * Creates `dir` (and parents) readable by its owner only. An existing directory is checked: one
 * owned by another user is refused (its owner could read or swap our keys), and one that group or
 * others can reach is tightened to 0700.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const info = await stat(dir)
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory`)
  const uid = process.getuid?.()
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`${dir} belongs to another user (uid ${info.uid}); refusing to keep keys and tokens there: use a directory of your own`)
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700)
}

/**
 * Removes temporary files a crash left behind next to `file` (writePrivateFile's
 * `.<name>.<pid>.<random>.tmp`). Call it only while owning the file (its lock held).
 */
export async function removeStaleTempFiles(file: string): Promise<number> {
  const dir = dirname(file)
  const prefix = `.${basename(file)}.`
  let removed = 0
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    await rm(join(dir, name), { force: true })
    removed += 1
  }
  return removed
}

/**
 * Writes `contents` to `file` atomically and durably: a temp file (0600) in the same directory is
 * written, fsynced and renamed over the target, then the directory is fsynced, so a crash leaves
 * either the old or the new file, never a torn one.
 */
export async function writePrivateFile(file: string, contents: string | Uint8Array): Promise<void> {
  await placePrivateFile(file, [contents], 'replace')
}

/**
 * {@link writePrivateFile} for contents too large to hold as one string or buffer: `chunks` are
 * written one after another (the event loop is free between them), then the file is placed as
 * writePrivateFile places it. When `chunks` throws, the temp file is removed and the old file stays.
 */
export async function writePrivateFileFrom(file: string, chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): Promise<void> {
  await placePrivateFile(file, chunks, 'replace')
}

/** Copies `from` to `to` as {@link writePrivateFileFrom} writes: 0600, atomically and durably. */
export async function copyPrivateFile(from: string, to: string): Promise<void> {
  await placePrivateFile(to, createReadStream(from) as AsyncIterable<Buffer>, 'replace')
}

/**
 * Creates `file` (0600) with `contents` only if it does not exist yet; true when this call created
 * it. For files several processes may create at once on one shared data directory (nodes of a
 * deployment starting together): the temp file is hard-linked to the name, an atomic step that
 * fails when the name exists. So exactly one writer wins, and the others, told false, read a
 * complete file (never a torn one, never overwritten). The file system must support hard links
 * (local disks and NFS do).
 */
export async function createPrivateFile(file: string, contents: string | Uint8Array): Promise<boolean> {
  return placePrivateFile(file, [contents], 'create')
}

/** Writes and fsyncs a temp file beside `file`, then renames it over (replace) or links it to the free name (create). */
async function placePrivateFile(file: string, chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>, mode: 'replace' | 'create'): Promise<boolean> {
  const dir = dirname(file)
  await ensurePrivateDir(dir)
  // the name removeStaleTempFiles looks for: crash leftovers are found
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await withFd(tmp, 'wx', 0o600, async (fd) => {
      for await (const chunk of chunks) await writeAllFd(fd, chunk)
      await syncFd(fd)
    })
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  try {
    if (mode === 'replace') await rename(tmp, file)
    else await link(tmp, file)
  } catch (error) {
    await rm(tmp, { force: true })
    if (mode === 'create' && (error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  if (mode === 'create') await rm(tmp, { force: true })
  await withFd(dir, 'r', undefined, syncFd)
  return true
}

/** Reads and parses a JSON file; undefined when it does not exist; a clear error when corrupt. */
export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as T
  } catch (error) {
    throw new Error(`${file} is not valid JSON; refusing to overwrite it (restore it from a backup or move it away)`, { cause: error })
  }
}
