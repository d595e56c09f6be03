import type { ApiPart } from './part.js'

/** The admin API's resources operations (filled in by their issue part). */
export const resourcesPart: ApiPart = {
  tag: 'resources',
  description: 'Resources',
  paths: {},
  schemas: {},
}
