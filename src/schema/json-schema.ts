import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats ships CommonJS with a default export
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const DRAFT_07 = 'http://json-schema.org/draft-07/schema'

/**
 * Compiles JSON Schemas once and validates values against them. JSON Schema 2020-12 is the
 * default (MCP 2025-11-25); a schema whose `$schema` names draft-07 is compiled as draft-07.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic (JSON Schema usage)
 */
export class JsonSchemaValidator {
  readonly #ajv2020: Ajv
  readonly #ajv07: Ajv
  readonly #cache = new WeakMap<object, ValidateFunction>()

  constructor() {
    this.#ajv2020 = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }))
    this.#ajv07 = addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: false }))
  }

  /**
   * Validate `value`; returns undefined when it is valid, else a readable description of what
   * is wrong. Throws when the schema itself cannot be compiled.
   */
  validate(schema: object, value: unknown): string | undefined {
    const validate = this.#compile(schema)
    if (validate(value)) return undefined
    return this.#ajv2020.errorsText(validate.errors, { dataVar: 'value' })
  }

  /** Compile eagerly (to refuse a bad schema at registration time). */
  compile(schema: object): void {
    this.#compile(schema)
  }

  #compile(schema: object): ValidateFunction {
    let validate = this.#cache.get(schema)
    if (validate === undefined) {
      const declared = (schema as { $schema?: unknown }).$schema
      const ajv = typeof declared === 'string' && declared.startsWith(DRAFT_07) ? this.#ajv07 : this.#ajv2020
      validate = ajv.compile(schema)
      this.#cache.set(schema, validate)
    }
    return validate
  }
}
