import { readFile } from 'node:fs/promises'

/**
 * Reads a JSON configuration overlay (see `config/*.example.json`). Values are validated by the
 * component that takes them (unknown keys and bad values are refused there, with their path).
 */
export async function loadConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new Error(`cannot read configuration file ${path}: ${(error as Error).message}`, { cause: error })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`configuration file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`configuration file ${path} must hold a JSON object`)
  }
  return value as Record<string, unknown>
}
