/**
 * Thrown when the embedded store's files are damaged anywhere but a journal's unfinished last
 * batch (which a crash leaves, and which is dropped): the server refuses to start on them rather
 * than lose or invent data. Names the file and the line.
 */
export class StoreDamagedError extends Error {
  override name = 'StoreDamagedError'
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(
      `storage file ${file}${line === undefined ? '' : ` line ${line}`} is damaged (${reason}); refusing to start on it. ` +
        'Restore the data directory from a backup (mcp-auth restore, see docs/deployment.md), or move the damaged file away to inspect it.',
    )
  }
}
