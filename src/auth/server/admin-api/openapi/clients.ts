import type { ApiPart } from './part.js'

/** The admin API's clients operations (filled in by their issue part). */
export const clientsPart: ApiPart = {
  tag: 'clients',
  description: 'Clients',
  paths: {},
  schemas: {},
}
