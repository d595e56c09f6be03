/**
 * The Node.js lines we support: the LTS lines oidc-provider 9 supports (22 "Jod" and later), the
 * newest first. Node 20 reached its end of life in April 2026; the whole suite still passes there.
 */
export const SUPPORTED_NODE_LINES = [24, 22] as const

/**
 * One line for a server's start-up when Node.js is older than every supported line (it replaces
 * oidc-provider's own warning, see src/auth/server/unsupported-runtime-warning.ts); undefined on a
 * supported line.
 */
export function nodeSupportNotice(version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0])
  if (major >= Math.min(...SUPPORTED_NODE_LINES)) return undefined
  return `notice: Node.js ${version} is past its end of life (Node 20: April 2026) and runs here unsupported; use Node.js ${SUPPORTED_NODE_LINES.join(' or ')} LTS (${SUPPORTED_NODE_LINES[0]} recommended)`
}
