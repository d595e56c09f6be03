import { crc32 } from 'node:zlib'
import type { OidcPayload } from '../types.js'

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
  /** A model record set (expiresAt epoch ms, null for never). */
  | readonly ['m', string, string, OidcPayload, number | null]
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

const hex = (value: number): string => value.toString(16).padStart(8, '0')

/**
 * A line as written: the CRC-32 of the JSON text (8 hex digits), a space, the JSON text, a newline.
 * The checksum tells a torn or damaged line from a good one without trusting that it parses.
 */
export function encodeLine(json: string): string {
  return `${hex(crc32(json))} ${json}\n`
}

/** The JSON text of a model record line; `payloadJson` is the payload already serialized (the caller keeps its parse as the stored copy). */
export function modelLineJson(model: string, id: string, payloadJson: string, expiresAt: number | undefined): string {
  return `["m",${JSON.stringify(model)},${JSON.stringify(id)},${payloadJson},${expiresAt ?? 'null'}]`
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

function wellFormed(line: unknown[]): boolean {
  switch (line[0]) {
    case 'h':
      return line.length === 2 && isObject(line[1])
    case 'm':
      return line.length === 5 && isString(line[1]) && isString(line[2]) && isObject(line[3]) && (line[4] === null || typeof line[4] === 'number')
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
  const sum = Number.parseInt(buffer.toString('latin1', start, start + 8), 16)
  if (!Number.isInteger(sum) || crc32(buffer.subarray(start + 9, end)) !== sum) return 'checksum mismatch'
  let value: unknown
  try {
    value = JSON.parse(buffer.toString('utf8', start + 9, end))
  } catch {
    return 'not valid JSON'
  }
  if (!Array.isArray(value) || !wellFormed(value)) return 'not a line this build knows'
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
