/**
 * The loopback host names, as URL.hostname spells them: where http is allowed for development
 * (issuer, resources, redirect URIs, authorization servers) and what a loopback-bound server
 * accepts in Host. One list for every room.
 */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const

const LOOPBACK_SET: ReadonlySet<string> = new Set(LOOPBACK_HOSTS)

/** True when the URL's host is one of {@link LOOPBACK_HOSTS} exactly. */
export function isLoopbackUrl(url: string | URL): boolean {
  return LOOPBACK_SET.has(new URL(url).hostname)
}

/** True when a URL.hostname is one of {@link LOOPBACK_HOSTS} exactly. */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_SET.has(hostname)
}
