/**
 * The demo server's multi-round tool (2026-07-28 MRTR: asks for a name, then a colour) called over
 * plain HTTP, one stateless request per round, so a test can send each round to another node.
 */
const V = '2026-07-28'
export const MULTI_ROUND_TOOL = { name: 'test_input_required_result_multi_round', arguments: {} }

export interface RoundAnswer {
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

let id = 1

/** One round of the multi-round tool at `origin`/mcp: `params` carry the previous round's requestState and answers. */
export async function callRound(origin: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RoundAnswer> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': MULTI_ROUND_TOOL.name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: {
        ...MULTI_ROUND_TOOL,
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          'io.modelcontextprotocol/clientInfo': { name: 'input-rounds-test', version: '1.0.0' },
        },
      },
    }),
  })
  const text = await response.text()
  // an answer as SSE carries the result in its last data line
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)!
        .slice(6)
    : text
  return JSON.parse(json) as RoundAnswer
}

/** Accepts an elicitation with `content`. */
export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })
