/**
 * The Node.js lines we support: the LTS lines oidc-provider 9 supports (22 "Jod" and later), the
 * newest first. Node 20 reached its end of life in April 2026; the whole suite still passes there.
 */
export const SUPPORTED_NODE_LINES = [24, 22] as const

const SUPPORTED = `the supported lines are Node.js ${SUPPORTED_NODE_LINES.join(' and ')} LTS (${SUPPORTED_NODE_LINES[0]} recommended)`

/**
 * One line for a server's start-up when Node.js is not a supported line (it replaces
 * oidc-provider's own warning, see src/auth/server/unsupported-runtime-warning.ts); undefined on a
 * supported one. `lts` is the release's LTS name (`process.release.lts`), absent on a Current line.
 */
export function nodeSupportNotice(release: { version: string; lts: string | undefined } = { version: process.versions.node, lts: process.release.lts }): string | undefined {
  const { version, lts } = release
  const major = Number(version.split('.')[0])
  if (major < Math.min(...SUPPORTED_NODE_LINES)) return `notice: Node.js ${version} is past its end of life; mcp-auth still runs on it, but ${SUPPORTED}`
  if (lts === undefined) return `notice: Node.js ${version} is not an LTS release; ${SUPPORTED}`
  return undefined
}
