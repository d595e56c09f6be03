import { access } from 'node:fs/promises'
import { close, fdatasync, fstat, fsync, ftruncate, open, read, writeFile } from 'node:fs'
import { promisify } from 'node:util'

// Storage writes go through file descriptors and callbacks, not fs/promises FileHandles:
// FileHandle.close() makes Node-internal promises of their own class, and one made once promise
// hooks are on (oidc-provider's AsyncLocalStorage, from the first request) leaves the hooks'
// per-promise bookkeeping megamorphic for the rest of the process. Every store write would do that;
// measured (issue 18) as ~3 µs more on every token request after the first registration.
export const openFd = promisify(open)
export const closeFd = promisify(close)
export const readFd = promisify(read)
/** Writes all of `data` at the descriptor's position (the end, for one opened to append). */
export const writeAllFd = promisify(writeFile)
export const syncFd = promisify(fsync)
export const dataSyncFd = promisify(fdatasync)
export const truncateFd = promisify(ftruncate)
export const statFd = promisify(fstat)

/** Runs `use` on `path` opened with `flags`, then closes it (also when `use` throws). */
export async function withFd<T>(path: string, flags: string, mode: number | undefined, use: (fd: number) => Promise<T>): Promise<T> {
  const fd = await openFd(path, flags, mode)
  try {
    return await use(fd)
  } finally {
    await closeFd(fd)
  }
}

/** Whether `path` exists (and may be reached). */
export const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  )
