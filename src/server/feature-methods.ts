import type { JsonRpcParams } from '../jsonrpc/index.js'
import type { ServerCapabilities } from '../schema/capabilities.js'
import { observeCall } from './call-observer.js'
import { callTool } from './call-tool.js'
import { complete } from './complete.js'
import type { ServerContext } from './context.js'
import { paginate } from './pagination.js'
import { optionalObject, requireString } from './params.js'
import type { ServerFeatures } from './server-features.js'

/** One MCP method a server answers: whether the declared capabilities offer it, and how. */
export interface FeatureMethod {
  offered(caps: ServerCapabilities): boolean
  run(core: ServerFeatures, params: JsonRpcParams, context: ServerContext, protocolVersion: string | undefined): unknown
}

/**
 * The server features every revision shares (tools, resources, prompts, completion), written
 * once for sessions of the handshake era and stateless requests alike. Methods that keep state
 * per session (subscribe, setLevel) live with the session.
 */
export const FEATURE_METHODS: Readonly<Record<string, FeatureMethod>> = {
  'tools/list': {
    offered: (caps) => !!caps.tools,
    run: (core, params) => {
      const { page, nextCursor } = paginate(core.tools.list(), params.cursor, core.pageSize)
      return nextCursor === undefined ? { tools: page } : { tools: page, nextCursor }
    },
  },
  'tools/call': {
    offered: (caps) => !!caps.tools,
    run: (core, params, context, protocolVersion) =>
      core.callEnded.length === 0
        ? callTool(params, context, core.tools, core.validator, protocolVersion)
        : observeCall(core.callEnded, 'tools/call', params, context, () => callTool(params, context, core.tools, core.validator, protocolVersion)),
  },
  'resources/list': {
    offered: (caps) => !!caps.resources,
    run: async (core, params) => {
      const { page, nextCursor } = paginate(await core.resources.list(), params.cursor, core.pageSize)
      return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor }
    },
  },
  'resources/templates/list': {
    offered: (caps) => !!caps.resources,
    run: (core, params) => {
      const { page, nextCursor } = paginate(core.resources.listTemplates(), params.cursor, core.pageSize)
      return nextCursor === undefined ? { resourceTemplates: page } : { resourceTemplates: page, nextCursor }
    },
  },
  'resources/read': {
    offered: (caps) => !!caps.resources,
    run: (core, params, context) =>
      core.callEnded.length === 0
        ? core.resources.read(requireString(params, 'uri'), context)
        : observeCall(core.callEnded, 'resources/read', params, context, () => core.resources.read(requireString(params, 'uri'), context)),
  },
  'prompts/list': {
    offered: (caps) => !!caps.prompts,
    run: (core, params) => {
      const { page, nextCursor } = paginate(core.prompts.list(), params.cursor, core.pageSize)
      return nextCursor === undefined ? { prompts: page } : { prompts: page, nextCursor }
    },
  },
  'prompts/get': {
    offered: (caps) => !!caps.prompts,
    run: (core, params, context) =>
      core.callEnded.length === 0
        ? core.prompts.get(requireString(params, 'name'), optionalObject(params, 'arguments'), context)
        : observeCall(core.callEnded, 'prompts/get', params, context, () => core.prompts.get(requireString(params, 'name'), optionalObject(params, 'arguments'), context)),
  },
  'completion/complete': {
    offered: (caps) => !!caps.completions,
    run: (core, params) => complete(params, core.prompts, core.resources, core.maxCompletionValues),
  },
}

/** The feature method `method`, when there is one (own properties only: no prototype keys). */
export function featureMethod(method: string): FeatureMethod | undefined {
  return Object.hasOwn(FEATURE_METHODS, method) ? FEATURE_METHODS[method] : undefined
}
