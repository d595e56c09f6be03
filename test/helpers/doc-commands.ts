/** One `mcp-auth` line of a page's shell blocks. */
export interface CommandLine {
  /** 1-based line number in the page. */
  at: number
  words: string[]
}

/** The words of a shell line as sh would split them (quotes, an unquoted `#` comment). */
export function shellWords(line: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let quote: '"' | "'" | undefined
  for (const char of line) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === '"' || char === "'") {
      quote = char
      word ??= ''
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (char === '#' && word === undefined) break
    else word = (word ?? '') + char
  }
  if (quote !== undefined) throw new Error(`unbalanced quote in: ${line}`)
  if (word !== undefined) words.push(word)
  return words
}

/** Every `mcp-auth` command of the page's sh blocks, continuation lines joined. */
export function commandLines(page: string): CommandLine[] {
  const lines = page.split('\n')
  const found: CommandLine[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i]!)) continue
    for (i++; lines[i] !== '```'; i++) {
      const at = i + 1
      let text = lines[i]!
      while (text.endsWith('\\')) text = `${text.slice(0, -1)} ${lines[++i]!.trim()}`
      const words = shellWords(text)
      if (words[0] === 'mcp-auth') found.push({ at, words: words.slice(1) })
    }
  }
  return found
}

/** The heading of docs/deployment.md's section on the embedded store (a single process, no Redis). */
export const EMBEDDED_STORE_SECTION = '## The embedded store: status, backup and restore'

/** Whether the 1-based line `at` of `page` lies in the section whose heading is `heading` (up to the next `## `). */
export function inSection(page: string, heading: string, at: number): boolean {
  const lines = page.split('\n')
  const start = lines.indexOf(heading)
  if (start === -1) return false
  const next = lines.findIndex((line, i) => i > start && line.startsWith('## '))
  return at > start + 1 && (next === -1 || at <= next)
}
