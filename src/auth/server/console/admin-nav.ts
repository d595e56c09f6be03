import { h } from './console-view.js'

const ITEMS: ReadonlyArray<readonly [string, string]> = [
  ['', 'Overview'],
  ['/accounts', 'Accounts'],
  ['/clients', 'Clients'],
  ['/resources', 'Resources'],
  ['/keys', 'Keys'],
  ['/audit', 'Audit trail'],
]

/** The console's navigation: its sections, the current one marked, and the sign-out form. */
export function adminNav(base: string, current: string, csrf: string, username: string): string {
  const links = ITEMS.map(([path, label]) => `<a href="${h(`${base}${path}`)}"${path === current ? ' aria-current="page"' : ''}>${h(label)}</a>`).join('')
  const signOut = `<form method="post" action="${h(`${base}/signout`)}"><input type="hidden" name="csrf" value="${h(csrf)}"><button type="submit" class="secondary" id="sign-out">Sign out ${h(username)}</button></form>`
  return `<nav class="console" aria-label="Administration">${links}${signOut}</nav>`
}
