import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import type { GatewayServer } from '../app/gateway-job.js'
import { gatewayServerNameProblem } from '../app/gateway-server-name.js'
import { defaults } from '../config/defaults.js'
import { UsageError } from './command.js'
import { parseScopes } from './scope-list.js'

/** A scope list: "mcp files:read" or ["mcp", "files:read"]. */
const scopeList = z.union([z.string(), z.array(z.string())])

const serverSchema = z.strictObject({
  $comment: z.string().optional(),
  command: z.string().min(1, 'is empty: name the program to run'),
  args: z.array(z.string()).optional(),
  env: z.array(z.string().min(1)).optional(),
  cwd: z.string().min(1).optional(),
  scopes: scopeList.optional(),
  toolScopes: z.record(z.string(), scopeList).optional(),
  shared: z.boolean().optional(),
  name: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
})

const fileSchema = z.strictObject({
  $comment: z.string().optional(),
  servers: z.record(z.string(), z.unknown()),
})

/**
 * `mcp-auth gateway --servers FILE`: the stdio programs behind one gateway (see
 * config/gateway-servers.example.json), each at `/<name>/mcp`. Every mistake is a one-line usage
 * error naming the server and the field.
 */
export async function readGatewayServersFile(path: string, environment: NodeJS.ProcessEnv = process.env): Promise<GatewayServer[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`--servers ${path}: cannot read it: ${(error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--servers ${path}: not valid JSON: ${(error as Error).message}`)
  }
  return parseGatewayServers(json, `--servers ${path}`, environment)
}

/** The servers of a parsed `--servers` document; `source` starts each error message. */
export function parseGatewayServers(json: unknown, source: string, environment: NodeJS.ProcessEnv): GatewayServer[] {
  const file = fileSchema.safeParse(json)
  if (!file.success) throw new UsageError(`${source}: ${issueText(file.error.issues[0]!, [])}`)
  const entries = Object.entries(file.data.servers)
  if (entries.length === 0) throw new UsageError(`${source}: "servers" is empty: name at least one server`)
  return entries.map(([name, value]) => {
    const problem = gatewayServerNameProblem(name)
    if (problem !== undefined) throw new UsageError(`${source}: server ${problem}`)
    const parsed = serverSchema.safeParse(value)
    if (!parsed.success) throw new UsageError(`${source}: server "${name}": ${issueText(parsed.error.issues[0]!, [])}`)
    const server = parsed.data
    const field = (key: string, run: () => string[]): string[] => {
      try {
        return run()
      } catch (error) {
        throw new UsageError(`${source}: server "${name}": ${key}: ${(error as Error).message}`)
      }
    }
    const requiredScopes = server.scopes === undefined ? undefined : field('scopes', () => scopesOf(server.scopes!))
    const toolScopes = Object.fromEntries(Object.entries(server.toolScopes ?? {}).map(([tool, scopes]) => [tool, field(`toolScopes.${tool}`, () => scopesOf(scopes))]))
    const env: Record<string, string> = {}
    for (const variable of server.env ?? []) {
      const value = environment[variable]
      if (value === undefined) throw new UsageError(`${source}: server "${name}": env: no variable ${variable} in this environment`)
      env[variable] = value
    }
    const scopes =
      requiredScopes === undefined && Object.keys(toolScopes).length === 0
        ? undefined
        : [...new Set([...(requiredScopes ?? defaults.authServer.resourceScopes), ...Object.values(toolScopes).flat()])]
    return {
      name,
      child: { command: server.command, ...(server.args !== undefined ? { args: server.args } : {}), env, ...(server.cwd !== undefined ? { cwd: server.cwd } : {}) },
      resource: {
        ...(server.name !== undefined ? { name: server.name } : {}),
        ...(server.description !== undefined ? { description: server.description } : {}),
        ...(scopes !== undefined ? { scopes } : {}),
        ...(requiredScopes !== undefined ? { requiredScopes } : {}),
        ...(Object.keys(toolScopes).length > 0 ? { toolScopes } : {}),
      },
      ...(server.shared === true ? { shared: true } : {}),
    }
  })
}

function scopesOf(value: string | readonly string[]): string[] {
  const scopes = typeof value === 'string' ? parseScopes(value) : value.flatMap((scope) => parseScopes(scope))
  if (scopes.length === 0) throw new Error('no scope given')
  return scopes
}

/** One zod issue as `field: what is wrong`. */
function issueText(issue: z.core.$ZodIssue, base: readonly PropertyKey[]): string {
  const path = [...base, ...issue.path].map(String).join('.')
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}${path === '' ? '' : ` in ${path}`}`
  return `${path === '' ? 'the document' : path}: ${issue.message}`
}
