import { openSync, writeSync, closeSync, readFileSync, unlinkSync } from 'node:fs'

/** Thrown when another live process holds the data file. */
export class StorageLockedError extends Error {
  override name = 'StorageLockedError'
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(`${file} is in use by process ${pid} (a running mcp-auth server?); stop it first, or point this command at another data directory`)
  }
}

/** Whether a process `pid` exists (signal 0 checks without sending anything; EPERM: it exists, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * An exclusive lock on `file` for this process (`<file>.lock` holding our pid). The embedded
 * store keeps the whole database in memory and rewrites the file, so two processes writing it
 * would lose each other's writes: the second one is refused instead. A lock left by a process
 * that died (kill -9) is taken over.
 */
export function acquireFileLock(file: string): { release(): void } {
  const lockFile = `${file}.lock`
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      let released = false
      const release = (): void => {
        if (released) return
        released = true
        process.off('exit', release)
        try {
          unlinkSync(lockFile)
        } catch {
          // already gone
        }
      }
      process.on('exit', release)
      return { release }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      let pid = Number.NaN
      try {
        pid = Number(readFileSync(lockFile, 'utf8').trim())
      } catch {
        continue
      }
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) throw new StorageLockedError(file, pid)
      if (pid === process.pid) throw new StorageLockedError(file, pid)
      try {
        unlinkSync(lockFile)
      } catch {
        // raced with another taker; retry
      }
    }
  }
  throw new Error(`could not lock ${file}`)
}
