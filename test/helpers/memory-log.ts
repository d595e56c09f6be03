import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { Log, LogLevel } from '../../src/observe/log.js'

/** A pino log whose lines a test reads: each as its JSON object, and its message alone in `messages`. */
export function memoryLog(level: LogLevel = 'info'): { log: Log; lines: Array<Record<string, unknown>>; messages: string[] } {
  const lines: Array<Record<string, unknown>> = []
  const messages: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text === '') continue
        const line = JSON.parse(text) as Record<string, unknown>
        lines.push(line)
        messages.push(`${String(line['msg'])}\n`)
      }
      done()
    },
  })
  return { log: pino({ level }, sink), lines, messages }
}
