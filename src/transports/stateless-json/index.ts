export { StatelessJsonHandler, type StatelessJsonOptions } from './stateless-json-handler.js'
