import type { ApiPart } from './part.js'

/** The admin API's grants operations (filled in by their issue part). */
export const grantsPart: ApiPart = {
  tag: 'grants',
  description: 'Grants',
  paths: {},
  schemas: {},
}
