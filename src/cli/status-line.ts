/**
 * Progress and messages of a running command on stderr: on a terminal, progress is one line
 * rewritten in place (a bar when the total is known) and messages print above it; otherwise
 * every update is a plain line, for logs and pipes.
 */
export class StatusLine {
  readonly #out: NodeJS.WriteStream
  readonly #tty: boolean
  #shown = false

  constructor(out: NodeJS.WriteStream) {
    this.#out = out
    this.#tty = out.isTTY === true
  }

  progress(progress: number, total: number | undefined, message: string | undefined): void {
    message = message === undefined ? undefined : printable(message)
    const amount = total === undefined ? `${progress}` : `${progress}/${total}`
    const text = `progress ${amount}${message === undefined ? '' : ` ${message}`}`
    if (!this.#tty) return void this.#out.write(`${text}\n`)
    const bar = total === undefined || total <= 0 ? '' : `[${'#'.repeat(Math.round(Math.min(1, progress / total) * 20)).padEnd(20, '.')}] `
    // a terminal that does not say its width (0 columns: a serial console, `script`) gets 80
    const width = this.#out.columns || 80
    this.#out.write(`\r\x1b[2K${bar}${text}`.slice(0, width + 5))
    this.#shown = true
  }

  /** A message line (a log message), printed above the progress line. */
  line(text: string): void {
    text = printable(text)
    if (this.#shown) this.#out.write('\r\x1b[2K')
    this.#out.write(`${text}\n`)
    this.#shown = false
  }

  /** Leaves the progress line, so what follows starts on a line of its own. */
  end(): void {
    if (this.#shown) this.#out.write('\n')
    this.#shown = false
  }
}

/** What a server sent, without control characters: it must not move the cursor or retitle the terminal. */
function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '\ufffd')
}
