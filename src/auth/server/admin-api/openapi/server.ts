import type { ApiPart } from './part.js'

/** The admin API's server operations (filled in by their issue part). */
export const serverPart: ApiPart = {
  tag: 'server',
  description: 'Server',
  paths: {},
  schemas: {},
}
