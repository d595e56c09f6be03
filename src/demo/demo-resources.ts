import type { McpServer } from '../server/mcp-server.js'
import { RED_PIXEL_PNG_BASE64 } from './demo-assets.js'

/** Where the demo's subscribable resource lives; its content changes on a timer while subscribed. */
export const WATCHED_RESOURCE_URI = 'test://watched-resource'

/** The demo server's resources: static text, static binary, a template and a watched resource. */
export function registerDemoResources(server: McpServer): void {
  server.registerResource({ uri: 'test://static-text', name: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }))
  server.registerResource(
    { uri: 'test://static-binary', name: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
    (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: RED_PIXEL_PNG_BASE64 }] }),
  )
  server.registerResourceTemplate(
    { uriTemplate: 'test://template/{id}/data', name: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
    {
      read: (uri, { id }) => ({
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
      }),
      complete: { id: (value) => ['1', '2', '3', '42', '100'].filter((id) => id.startsWith(value)) },
    },
  )
  let version = 0
  server.registerResource({ uri: WATCHED_RESOURCE_URI, name: 'Watched Resource', description: 'A resource that can be subscribed to', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: `Watched resource content, version ${version}` }],
  }))
  // a subscribable resource that changes: a new version each time a demo tool bumps it
  server.registerTool(
    {
      name: 'touch_watched_resource',
      description: `Changes ${WATCHED_RESOURCE_URI}; subscribers get notifications/resources/updated.`,
    },
    async () => {
      version++
      await server.notifyResourceUpdated(WATCHED_RESOURCE_URI)
      return { content: [{ type: 'text', text: `watched resource is now version ${version}` }] }
    },
  )
}
