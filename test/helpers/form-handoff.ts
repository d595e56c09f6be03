import { formLogin } from './form-login.js'

export interface FormHandoff {
  (authorizationUrl: URL): Promise<void>
  /** The authorization URLs handed off, in order. */
  urls: URL[]
  /** The callback pages the browser was shown (status of the loopback listener's answer). */
  callbackStatuses: number[]
}

/**
 * A login-helper hand-off that acts as the user's browser: signs in and consents on our
 * authorization server's pages, then follows the redirect to the loopback callback. `tamper` may
 * rewrite that redirect first, as an attacker in the middle of a mix-up would.
 */
export function formHandoff(options: { username?: string; password?: string; tamper?: (callback: URL) => void } = {}): FormHandoff {
  const handoff = Object.assign(
    async (url: URL) => {
      handoff.urls.push(url)
      const redirectUri = url.searchParams.get('redirect_uri')!
      const { callback } = await formLogin(url, { username: options.username ?? 'demo', password: options.password ?? 'demo password 1', redirectUri })
      options.tamper?.(callback)
      const response = await fetch(callback)
      await response.body?.cancel()
      handoff.callbackStatuses.push(response.status)
    },
    { urls: [] as URL[], callbackStatuses: [] as number[] },
  )
  return handoff
}
