import type { CallToolResult, JsonSchemaObject, ToolAnnotations } from '../schema/features.js'
import type { Icon } from '../schema/capabilities.js'
import type { ServerContext } from './context.js'
import type { ToolDefinition, ToolHandler } from './tool-registry.js'

type Issues = ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> }>
type ValidationResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: Issues }

/**
 * A schema library's object as Standard Schema with its JSON Schema converter (zod 4, ArkType,
 * Valibot): what the official SDK v2 takes as `inputSchema`/`outputSchema`. Only the interface is
 * used, so no schema library is loaded here. @see https://standardschema.dev
 */
export interface StandardSchemaWithJson<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    validate(value: unknown): ValidationResult<Output> | Promise<ValidationResult<Output>>
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
    readonly jsonSchema: {
      input(options: { target: string }): Record<string, unknown>
      output(options: { target: string }): Record<string, unknown>
    }
  }
}

/** A record of field schemas, `{ a: z.number() }`: the SDK v1 form (deprecated in v2, still accepted). */
export type RawShape = Record<string, StandardSchemaWithJson>

/** What `inputSchema`/`outputSchema` may be in the SDK's form: a Standard Schema, a raw shape, or plain JSON Schema. */
export type SdkSchema = StandardSchemaWithJson | RawShape | JsonSchemaObject

/** The config of `server.registerTool(name, config, handler)`, as the official SDK (v1 and v2) takes it. */
export interface SdkToolConfig<Input extends SdkSchema | undefined = SdkSchema | undefined, Output extends SdkSchema | undefined = SdkSchema | undefined> {
  title?: string
  description?: string
  inputSchema?: Input
  outputSchema?: Output
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

type OutputOf<S> = S extends StandardSchemaWithJson<unknown, infer O> ? O : unknown

/** The arguments a handler receives: the schema's output type (parsed values, defaults applied). */
export type SdkToolArgs<Input> = Input extends StandardSchemaWithJson
  ? OutputOf<Input>
  : Input extends JsonSchemaObject
    ? Record<string, unknown>
    : Input extends RawShape
      ? { [K in keyof Input]: OutputOf<Input[K]> }
      : Record<string, unknown>

/** As in the SDK: with an inputSchema the handler gets (args, context), without one only (context). */
export type SdkToolHandler<Input> = [Input] extends [undefined]
  ? (context: ServerContext) => CallToolResult | Promise<CallToolResult>
  : (args: SdkToolArgs<Input>, context: ServerContext) => CallToolResult | Promise<CallToolResult>

const TARGET = { target: 'draft-2020-12' }

/**
 * The SDK's `(name, config, handler)` as our `(definition, handler)`: schemas become JSON Schema
 * (listed, and checked by the registry's validator as every tool's are); a Standard Schema also
 * parses the arguments, so the handler sees its output (defaults, transforms) as the SDK gives it.
 */
export function fromSdkTool(name: string, config: SdkToolConfig, handler: (...args: never[]) => unknown): { definition: ToolDefinition; handler: ToolHandler } {
  const { inputSchema, outputSchema, ...rest } = config
  const definition: ToolDefinition = { name, ...rest }
  if (inputSchema !== undefined) definition.inputSchema = toJsonSchema(inputSchema, 'input')
  if (outputSchema !== undefined) definition.outputSchema = toJsonSchema(outputSchema, 'output')
  const call = handler as unknown as (...args: unknown[]) => CallToolResult | Promise<CallToolResult>
  if (inputSchema === undefined) return { definition, handler: (_args, context) => call(context) }
  const parse = parserOf(inputSchema)
  if (parse === undefined) return { definition, handler: (args, context) => call(args, context) }
  return {
    definition,
    handler: async (args, context) => {
      const parsed = await parse(args)
      if (parsed.issues !== undefined) throw new Error(`Invalid arguments for tool ${name}: ${describe(parsed.issues)}`)
      return call(parsed.value, context)
    },
  }
}

function isStandard(schema: unknown): schema is StandardSchemaWithJson {
  return typeof schema === 'object' && schema !== null && '~standard' in schema
}

function isRawShape(schema: SdkSchema): schema is RawShape {
  const values = Object.values(schema)
  return values.length > 0 && values.every(isStandard)
}

function toJsonSchema(schema: SdkSchema, io: 'input' | 'output'): JsonSchemaObject {
  if (isStandard(schema)) return schema['~standard'].jsonSchema[io](TARGET) as JsonSchemaObject
  if (!isRawShape(schema)) return schema as JsonSchemaObject
  const properties: Record<string, object> = {}
  const required: string[] = []
  for (const [key, field] of Object.entries(schema)) {
    const { $schema: _, ...property } = field['~standard'].jsonSchema[io](TARGET)
    properties[key] = property
    // a field is optional when its schema accepts its absence
    const absent = field['~standard'].validate(undefined)
    if (absent instanceof Promise || absent.issues !== undefined) required.push(key)
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties }
}

function parserOf(schema: SdkSchema): ((args: Record<string, unknown>) => Promise<ValidationResult<unknown>>) | undefined {
  if (isStandard(schema)) return async (args) => schema['~standard'].validate(args)
  if (!isRawShape(schema)) return undefined
  return async (args) => {
    const value: Record<string, unknown> = { ...args }
    const issues: Issues[number][] = []
    for (const [key, field] of Object.entries(schema)) {
      const result = await field['~standard'].validate(Object.hasOwn(args, key) ? args[key] : undefined)
      if (result.issues !== undefined) for (const issue of result.issues) issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] })
      else if (result.value !== undefined || Object.hasOwn(args, key)) value[key] = result.value
    }
    return issues.length > 0 ? { issues } : { value }
  }
}

function describe(issues: Issues): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part)).join('.')
      return path === '' ? issue.message : `${path}: ${issue.message}`
    })
    .join('; ')
}
