import type { ChildLink, ChildRoute } from './child-link.js'
import type { Principal } from './principal.js'

/**
 * Starts one child for the gateway and links to it: a stdio process, or a session with an
 * upstream HTTP server. `principal` is undefined for the shared child (one for everyone).
 * Rejects with an error that says why the child could not start.
 */
export type ChildFactory = (principal: Principal | undefined, options: { exclusive?: ChildRoute }) => Promise<ChildLink>
