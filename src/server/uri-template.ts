/**
 * Matching URIs against the simple RFC 6570 templates MCP resource templates use: `{name}`
 * matches one path segment's worth of characters (no `/`), `{+name}` and `{/name*}`-free
 * reserved expansion matches anything. Expansion is not needed on the server side.
 * @see https://www.rfc-editor.org/rfc/rfc6570#section-3.2.2
 */
export class UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  readonly #pattern: RegExp

  constructor(template: string) {
    this.template = template
    const variables: string[] = []
    let source = '^'
    let last = 0
    for (const match of template.matchAll(/\{(\+?)([A-Za-z0-9_.]+)\}/g)) {
      source += escapeRegExp(template.slice(last, match.index))
      variables.push(match[2]!)
      source += match[1] === '+' ? '(.+?)' : '([^/?#]+?)'
      last = match.index + match[0].length
    }
    source += `${escapeRegExp(template.slice(last))}$`
    this.variables = variables
    this.#pattern = new RegExp(source)
  }

  /** The variables of `uri` when it matches, else undefined. Values are percent-decoded. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri)
    if (found === null) return undefined
    const values: Record<string, string> = {}
    this.variables.forEach((name, i) => {
      const raw = found[i + 1]!
      try {
        values[name] = decodeURIComponent(raw)
      } catch {
        values[name] = raw
      }
    })
    return values
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
