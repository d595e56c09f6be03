import { crc32 } from 'node:zlib'

/** What a store file's first line says about it. */
export interface FileHeader {
  format: 'mcp-auth-snapshot' | 'mcp-auth-journal'
  version: 2
  /** A snapshot continues with the journal of this generation; a journal is this generation. */
  generation: number
  /** Epoch ms the file was started. */
  createdAt: number
}

/**
 * One line of a snapshot or journal: a change, or the structure around changes. Changes are
 * idempotent (they set or remove whole records), so a journal replayed over a snapshot taken while
 * writes went on (a compaction does not stop the world) ends in the state the writes left.
 */
export type StoreLine =
  | readonly ['h', FileHeader]
  /**
   * A model record set: model, id, expiresAt (epoch ms, null for never), the payload's `grantId`,
   * `uid`, `userCode` (null when absent: the indexes), and the payload's JSON text, kept as text.
   */
  | readonly ['m', string, string, number | null, string | null, string | null, string | null, string]
  /** Model records removed. */
  | readonly ['x', string, readonly string[]]
  /** A collection record set. */
  | readonly ['r', string, string, object]
  /** A collection record removed. */
  | readonly ['y', string, string]
  /** Expired records swept at this epoch ms (replay drops what had expired by then). */
  | readonly ['s', number]
  /** The end of a journal batch of this many change lines: the batch is durable only with it. */
  | readonly ['c', number]
  /** The end of a snapshot of this many record lines: a snapshot without it is incomplete. */
  | readonly ['e', number]

/** Byte → hex digit value (-1 for anything else): read without making a string per line. */
const HEX = new Int8Array(256).fill(-1)
for (let digit = 0; digit < 16; digit++) HEX[digit.toString(16).charCodeAt(0)] = digit

const hex = (value: number): string => value.toString(16).padStart(8, '0')

/**
 * A line as written: the CRC-32 of the JSON text (8 hex digits), a space, the JSON text, a newline.
 * The checksum tells a torn or damaged line from a good one without trusting that it parses.
 */
export function encodeLine(json: string): string {
  return `${hex(crc32(json))} ${json}\n`
}

/** What a model record is indexed by, taken from its payload when it is written. */
export interface RecordKeys {
  grantId?: string
  uid?: string
  userCode?: string
}

/**
 * A model record's line: `<crc> ["m",model,id,expiresAt,grantId,uid,userCode]<TAB><payload JSON>`.
 * The payload stays JSON text in memory (parsed when read, so a read gets its own copy), and a
 * start reads it without parsing it: only the short array before the tab is parsed. JSON.stringify
 * never writes a raw tab, so the first tab is where the payload begins.
 */
export function modelLine(model: string, id: string, json: string, expiresAt: number | undefined, keys: RecordKeys): string {
  const q = (value: string | undefined): string => (value === undefined ? 'null' : JSON.stringify(value))
  return encodeLine(`["m",${JSON.stringify(model)},${JSON.stringify(id)},${expiresAt ?? 'null'},${q(keys.grantId)},${q(keys.uid)},${q(keys.userCode)}]\t${json}`)
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

function wellFormed(line: unknown[]): boolean {
  switch (line[0]) {
    case 'h':
      return line.length === 2 && isObject(line[1])
    case 'm':
      return (
        line.length === 7 &&
        isString(line[1]) &&
        isString(line[2]) &&
        (line[3] === null || typeof line[3] === 'number') &&
        [line[4], line[5], line[6]].every((key) => key === null || isString(key))
      )
    case 'x':
      return line.length === 3 && isString(line[1]) && Array.isArray(line[2]) && line[2].every(isString)
    case 'r':
      return line.length === 4 && isString(line[1]) && isString(line[2]) && isObject(line[3])
    case 'y':
      return line.length === 3 && isString(line[1]) && isString(line[2])
    case 's':
      return line.length === 2 && typeof line[1] === 'number'
    case 'c':
    case 'e':
      return line.length === 2 && isCount(line[1])
    default:
      return false
  }
}

/**
 * Decodes one line (without its newline) from `buffer[start, end)`: the line, or why it is not one
 * (a checksum that does not match, text that does not parse, a shape this build does not know).
 */
export function decodeLine(buffer: Buffer, start: number, end: number): StoreLine | string {
  if (end - start < 10 || buffer[start + 8] !== 0x20) return 'not a checksummed line'
  let sum = 0
  for (let at = start; at < start + 8; at++) {
    const digit = HEX[buffer[at] as number] as number
    if (digit < 0) return 'not a checksummed line'
    sum = sum * 16 + digit
  }
  if (crc32(buffer.subarray(start + 9, end)) !== sum) return 'checksum mismatch'
  const tab = buffer.indexOf(9, start + 9)
  const metaEnd = tab === -1 || tab >= end ? end : tab
  let value: unknown
  try {
    value = JSON.parse(buffer.toString('utf8', start + 9, metaEnd))
  } catch {
    return 'not valid JSON'
  }
  if (!Array.isArray(value) || !wellFormed(value)) return 'not a line this build knows'
  // a model record, and only a model record, carries its payload after a tab
  if ((value[0] === 'm') !== (metaEnd !== end)) return 'not a line this build knows'
  if (value[0] !== 'm') return value as unknown as StoreLine
  if (buffer[metaEnd + 1] !== 0x7b || buffer[end - 1] !== 0x7d) return 'a payload that is not a JSON object'
  value.push(buffer.toString('utf8', metaEnd + 1, end))
  return value as unknown as StoreLine
}

/** A header line's contents checked: the format asked for, version 2, a generation. */
export function headerOf(line: StoreLine | string, format: FileHeader['format']): FileHeader | string {
  if (typeof line === 'string') return line
  if (line[0] !== 'h') return `the first line is not a ${format} header`
  const header = line[1] as Partial<FileHeader>
  if (header.format !== format) return `the header names ${JSON.stringify(header.format)}, not ${format}`
  if (header.version !== 2) return `format version ${JSON.stringify(header.version)}; this build reads version 2`
  if (!Number.isSafeInteger(header.generation) || (header.generation as number) < 1) return 'the header has no generation'
  return header as FileHeader
}
