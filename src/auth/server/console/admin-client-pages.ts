import { defaults } from '../../../config/defaults.js'
import { breakableUrl } from '../../../views/breakable-url.js'
import { AdminError } from '../admin/admin-error.js'
import { confirmPage, doneNotice, grantRows } from './admin-account-pages.js'
import type { AdminPage, AdminPageRequest } from './console-deps.js'
import { h, notice, postButton, sendPage, table } from './console-view.js'

const a = defaults.authServer.admin

/** Block and unblock, once the administration core has them (another part of issue 32 adds them). */
interface Blocking {
  block(clientId: string): Promise<unknown>
  unblock(clientId: string): Promise<unknown>
}

function blocking(request: AdminPageRequest): Blocking | undefined {
  const clients = request.deps.administration.clients as unknown as Partial<Blocking>
  return typeof clients.block === 'function' && typeof clients.unblock === 'function' ? (clients as Blocking) : undefined
}

const clientPath = (request: AdminPageRequest, clientId: string): string => `${request.deps.surfaces.admin.basePath}/clients/${encodeURIComponent(clientId)}`

/** GET /admin/clients: the registered clients (search by id or name), a page at a time. */
export const clientsPage: AdminPage = async (request) => {
  const base = request.deps.surfaces.admin.basePath
  const query = request.ctx.URL.searchParams
  const q = (query.get('q') ?? '').trim().slice(0, 200)
  const needle = q.toLowerCase()
  const offset = Math.max(0, Number.parseInt(query.get('from') ?? '0', 10) || 0)
  const all = (await request.deps.administration.clients.list()).filter(
    (client) => needle === '' || client.client_id.toLowerCase().includes(needle) || (client.client_name ?? '').toLowerCase().includes(needle),
  )
  const shown = all.slice(offset, offset + a.pageSize)
  const rows = shown.map((client) => [
    `<a href="${h(clientPath(request, client.client_id))}">${h(client.client_name ?? client.client_id)}</a>`,
    `<code>${h(client.client_id)}</code>`,
    client.configured ? 'configured' : 'registered',
    h((client.grant_types ?? []).join(' ')),
  ])
  const next =
    offset + a.pageSize < all.length
      ? `<p><a id="next-page" href="${h(`${base}/clients?${new URLSearchParams({ ...(q !== '' ? { q } : {}), from: String(offset + a.pageSize) })}`)}">Next page</a></p>`
      : ''
  sendPage(
    request.ctx,
    {
      title: 'Clients',
      nav: request.nav('/clients'),
      notice: doneNotice(request),
      content: `<form class="search" method="get" action="${h(`${base}/clients`)}" role="search">
<div><label for="q">Search clients</label><input id="q" type="text" name="q" value="${h(q)}" autocomplete="off"></div>
<button type="submit" class="secondary">Search</button></form>
${table('Clients', ['Name', 'Client ID', 'Origin', 'Grant types'], rows, 'No client matches.')}${next}`,
    },
    request.deps.branding,
  )
}

/** GET /admin/clients/{client_id}: what the client holds (its grants: who uses it), remove, block. */
export const clientPage: AdminPage = async (request) => {
  const clientId = request.params[0]!
  const client = (await request.deps.administration.clients.list()).find((candidate) => candidate.client_id === clientId)
  if (client === undefined) throw new AdminError('unknown_client', `no client with client_id ${clientId}`)
  const path = clientPath(request, clientId)
  const grants = await request.deps.administration.grants.list({ clientId })
  const blocks = blocking(request)
  const actions = [
    client.configured
      ? '<p class="muted">A configured client: change or remove it in the server’s configuration.</p>'
      : postButton(`${path}/remove`, 'Remove client', request.csrf, { id: 'remove', secondary: true }),
    blocks === undefined
      ? '<p class="muted">Blocking a client is not available on this server version.</p>'
      : `${postButton(`${path}/block`, 'Block', request.csrf, { id: 'block', secondary: true })} ${postButton(`${path}/unblock`, 'Unblock', request.csrf, { id: 'unblock', secondary: true })}`,
  ]
  sendPage(
    request.ctx,
    {
      title: client.client_name ?? client.client_id,
      nav: request.nav('/clients'),
      notice: doneNotice(request),
      content: `<dl class="facts">
<dt>Client ID</dt><dd><code>${h(client.client_id)}</code></dd>
<dt>Origin</dt><dd>${client.configured ? 'configured' : 'registered'}</dd>
<dt>Grant types</dt><dd>${h((client.grant_types ?? []).join(' ') || '–')}</dd>
<dt>Redirect URIs</dt><dd>${(client.redirect_uris ?? []).map((uri) => `<code class="url">${breakableUrl(uri)}</code>`).join('<br>') || '–'}</dd>
</dl>
<div class="actions">${actions.join('')}</div>
<h2>Who uses it</h2>
${table(`Grants to ${client.client_name ?? client.client_id}`, ['Account', 'Client', 'Resources and scopes', 'Granted', ''], grantRows(request, grants, path), 'Nobody has granted this client access.')}`,
    },
    request.deps.branding,
  )
}

/** POST /admin/clients/{client_id}/{remove|block|unblock}. */
export const clientAction: AdminPage = async (request) => {
  const [clientId, verb] = request.params as [string, string]
  const path = clientPath(request, clientId)
  const base = request.deps.surfaces.admin.basePath
  const blocks = blocking(request)
  if (verb === 'remove') {
    if (request.form.get('confirm') !== 'yes')
      return confirmPage(request, `Remove ${clientId}?`, `${path}/remove`, {}, path, 'Its grants end at once and it must register again; this cannot be undone.')
    await request.deps.administration.clients.remove(clientId)
    request.ctx.redirect(`${base}/clients`)
  } else if (blocks !== undefined) {
    await (verb === 'block' ? blocks.block(clientId) : blocks.unblock(clientId))
    request.ctx.redirect(path)
  } else {
    sendPage(
      request.ctx,
      { status: 501, title: 'Not available', nav: request.nav('/clients'), content: notice('Blocking a client is not available on this server version.', true) },
      request.deps.branding,
    )
    return
  }
  request.ctx.status = 303
}

/** POST /admin/grants/{grant_id}/revoke: ends the grant, back to the page it was listed on. */
export const revokeGrant: AdminPage = async (request) => {
  await request.deps.administration.grants.revoke(request.params[0]!)
  const base = request.deps.surfaces.admin.basePath
  const back = request.form.get('back') ?? base
  request.ctx.redirect(`${back.startsWith(`${base}/`) ? back : base}?done=revoked`)
  request.ctx.status = 303
}
