import { defaults } from '../../config/defaults.js'

/**
 * The environment of a spawned MCP server: only the allow-listed variables copied from ours, then
 * what the caller passes. Everything else (tokens, keys, cloud credentials) stays with us. Values
 * starting with `()` are exported shell functions (Shellshock-style payloads) and are never copied.
 *
 * @example
 * spawn('my-server', [], { env: childEnvironment({ API_TOKEN: token }) })
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization (stdio takes credentials from the environment)
 */
export function childEnvironment(
  extra: Readonly<Record<string, string>> = {},
  inherited: readonly string[] = defaults.stdio.inheritedEnv,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of inherited) {
    const value = source[name]
    if (value === undefined || value.startsWith('()')) continue
    env[name] = value
  }
  return { ...env, ...extra }
}
