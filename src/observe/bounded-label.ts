/**
 * A label whose values are capped: the first `max` distinct values pass as they are, any value
 * after them is `other`, and a value that is not a plain phrase (letters, digits, `_ . : / { } -`
 * and spaces, at most 64 characters) is `other` at once. Labels come from our own fixed phrases
 * (route templates, OAuth error codes), so the cap is a second net: a bug or an attacker's input
 * reaching a label cannot grow the number of series without bound.
 */
export class BoundedLabel {
  readonly #seen = new Set<string>()
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  value(value: string | undefined): string {
    if (value === undefined || value === '') return 'none'
    if (this.#seen.has(value)) return value
    if (this.#seen.size >= this.#max || !PLAIN.test(value)) return 'other'
    this.#seen.add(value)
    return value
  }
}

const PLAIN = /^[\w.:/{} -]{1,64}$/
