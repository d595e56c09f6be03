/** One tag of the admin API's document: its paths (operations with an `operationId` each) and schemas. */
export interface ApiPart {
  tag: string
  description: string
  paths: Record<string, unknown>
  schemas: Record<string, unknown>
}

/** A list operation's usual parameters and answer, for the parts to share. */
export const listParameters = [{ $ref: '#/components/parameters/limit' }, { $ref: '#/components/parameters/cursor' }]

export function pageOf(itemSchema: string): Record<string, unknown> {
  return {
    type: 'object',
    required: ['items'],
    properties: { items: { type: 'array', items: { $ref: `#/components/schemas/${itemSchema}` } }, next_cursor: { type: 'string' } },
  }
}

/** The answers every operation may give besides its own. */
export const problems = {
  '400': { $ref: '#/components/responses/problem' },
  '401': { $ref: '#/components/responses/problem' },
  '403': { $ref: '#/components/responses/problem' },
  '404': { $ref: '#/components/responses/problem' },
}

/** A JSON request body of a schema. */
export function jsonBody(schema: string): Record<string, unknown> {
  return { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } }
}

/** A JSON answer of a schema. */
export function jsonAnswer(description: string, schema: string | Record<string, unknown>): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: typeof schema === 'string' ? { $ref: `#/components/schemas/${schema}` } : schema } } }
}
