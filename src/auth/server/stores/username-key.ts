/**
 * The one spelling of a username used for lookups and for per-account limits: NFKC then lower
 * case, so `ｄｅｍｏ` (fullwidth), `DEMO` and `demo` are one account and one login-attempt budget.
 */
export function usernameKey(username: string): string {
  return username.normalize('NFKC').toLowerCase()
}
