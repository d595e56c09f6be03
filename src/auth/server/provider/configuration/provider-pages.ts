import type { Configuration, KoaContextWithOIDC } from 'oidc-provider'
import { pageHeaders, renderView } from '../../../../views/render-view.js'
import { clientDisplayName } from '../../interactions/client-display-name.js'
import type { ResolvedOptions } from '../../options.js'
import { oidcOf } from '../oidc-context.js'

/** The pages oidc-provider renders itself, drawn from our views instead of its own. */
export interface ProviderPages {
  /** The sign-out confirmation (`rpInitiatedLogout.logoutSource`). */
  logoutSource(ctx: KoaContextWithOIDC, form: string): void
  /** After signing out (`rpInitiatedLogout.postLogoutSuccessSource`). */
  postLogoutSuccessSource(ctx: KoaContextWithOIDC): void
  /** An error oidc-provider cannot send back to the client (`renderError`). */
  renderError: NonNullable<Configuration['renderError']>
}

/**
 * Our pages, not oidc-provider's: the server's branding, no external font, CSP and
 * frame-ancestors 'none' (no framing a sign-out button), and signing out takes the user's click.
 */
export function providerPages(options: ResolvedOptions): ProviderPages {
  return {
    logoutSource(ctx: KoaContextWithOIDC, form: string) {
      ctx.set(pageHeaders(options.branding))
      ctx.type = 'html'
      ctx.body = renderView('logout', 'Sign out', { serverHost: options.issuer.host, form }, options.branding)
    },
    postLogoutSuccessSource(ctx: KoaContextWithOIDC) {
      const client = oidcOf(ctx)?.client
      ctx.set(pageHeaders(options.branding))
      ctx.type = 'html'
      ctx.body = renderView(
        'logged-out',
        'Signed out',
        {
          serverHost: options.issuer.host,
          clientPart: client === undefined ? '' : ` (asked by ${clientDisplayName(client.clientId, client.clientName)})`,
        },
        options.branding,
      )
    },
    async renderError(ctx, out) {
      ctx.set(pageHeaders(options.branding))
      ctx.type = 'html'
      ctx.body = renderView(
        'error',
        'Error',
        {
          error: out['error'],
          description: out['error_description'] ?? 'The request could not be completed.',
        },
        options.branding,
      )
    },
  }
}
