import type { McpServerOptions } from '../server/mcp-server.js'
import { McpServer } from '../server/mcp-server.js'
import { registerConformanceFixtures } from './conformance-fixtures.js'
import { registerDemoPrompts } from './demo-prompts.js'
import { registerDemoResources } from './demo-resources.js'
import { registerDemoTools } from './demo-tools.js'

/**
 * The demo MCP server: every feature of the stack in one place (tools incl. progress,
 * cancellation, sampling, elicitation and structured output; text, binary, templated and
 * subscribable resources; prompts with arguments and completions; logging). The conformance
 * suite's fixed names (`test_simple_text`, `test://static-text`, …) are part of its contract.
 *
 * @example
 * const server = createDemoServer()
 * await server.connect(new StdioServerTransport())
 */
export function createDemoServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'mcp-auth-demo', title: 'mcp-auth demo server', version: '0.1.0' },
    { instructions: 'A demo server exercising every MCP feature; try the echo tool first.', ...options },
  )
  registerDemoTools(server)
  registerDemoResources(server)
  registerDemoPrompts(server)
  registerConformanceFixtures(server)
  return server
}
