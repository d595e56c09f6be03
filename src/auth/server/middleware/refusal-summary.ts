/**
 * A line for the server's log, not a fault: its `stack` is its message, so a logger that prints
 * stacks (Koa's default) prints one line.
 */
export class LogLine extends Error {
  override name = 'LogLine'
  /** The level the log writes it at (observe/log-error.ts): a warning, not a fault. */
  readonly logLevel = 'warn'

  constructor(message: string) {
    super(message)
    this.stack = message
  }
}

/**
 * Refusals counted, not logged one by one (a flood is thousands a minute, each a client's doing):
 * the first refusal of a quiet spell is one line at once, those after it are summed up in one line
 * per window, by reason. Bounded: one counter per reason, whoever sent them.
 */
export class RefusalSummary {
  readonly #what: string
  readonly #windowMs: number
  readonly #report: (line: LogLine) => void
  #counts = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined

  /** `what`: the refused thing, plural ("registrations"). */
  constructor(what: string, windowMs: number, report: (line: LogLine) => void) {
    this.#what = what
    this.#windowMs = windowMs
    this.#report = report
  }

  /** Counts one refusal; `reason` is a fixed phrase (never outside input). */
  count(reason: string, firstLine: () => string): void {
    if (this.#timer === undefined) {
      this.#report(new LogLine(`${firstLine()} (further refusals are counted and summed up every ${this.#windowMs / 1000} s)`))
      this.#timer = setTimeout(() => this.#flush(), this.#windowMs)
      this.#timer.unref()
      return
    }
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1)
  }

  #flush(): void {
    const counts = this.#counts
    this.#counts = new Map()
    this.#timer = undefined
    let total = 0
    for (const n of counts.values()) total += n
    if (total === 0) return
    const reasons = [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ')
    this.#report(new LogLine(`${total} more ${this.#what} refused in the last ${this.#windowMs / 1000} s (${reasons})`))
    // still refusing: the next window sums up too
    this.#timer = setTimeout(() => this.#flush(), this.#windowMs)
    this.#timer.unref()
  }
}
