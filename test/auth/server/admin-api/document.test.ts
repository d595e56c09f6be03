// Issue 32: the admin API's OpenAPI document is valid as openapi-backend reads it in strict mode,
// and it and the operations agree: every operationId has an operation, every operation is described.
import addFormatsModule from 'ajv-formats'
import { OpenAPIBackend } from 'openapi-backend'
import { describe, expect, it } from 'vitest'
import { ADMIN_OPERATIONS } from '../../../../src/auth/server/admin-api/handlers/index.js'
import { adminApiDocument } from '../../../../src/auth/server/admin-api/openapi/document.js'

const document = adminApiDocument('https://auth.example.com/admin/api') as { paths: Record<string, Record<string, { operationId?: string }>> }
const addFormats = addFormatsModule as unknown as <T>(ajv: T) => T
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
const described = Object.values(document.paths).flatMap((item) => METHODS.flatMap((method) => (item[method]?.operationId !== undefined ? [item[method]!.operationId!] : [])))

describe('the admin API document', () => {
  it('is a valid OpenAPI document (strict)', async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(document) as never, strict: true, validate: true, customizeAjv: (ajv) => addFormats(ajv) })
    await expect(api.init()).resolves.toBeDefined()
  })

  it('describes every operation there is, and has an operation for each one it describes', () => {
    expect(new Set(described).size).toBe(described.length)
    expect([...described].sort()).toEqual(Object.keys(ADMIN_OPERATIONS).sort())
  })
})
