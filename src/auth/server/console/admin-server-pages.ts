import { builtInResources } from '../admin/built-in-resources.js'
import type { AdminPage, AdminPageRequest } from './console-deps.js'
import { h, sendPage, table } from './console-view.js'

/**
 * What the administration core says about the server (another part of issue 32 adds `server`:
 * state, nodes, keys). Shown when present, said to be missing otherwise: never guessed here.
 */
interface ServerFacts {
  state?: () => Promise<Record<string, unknown>>
  keys?: () => Promise<unknown>
}

function serverFacts(request: AdminPageRequest): ServerFacts {
  const server = (request.deps.administration as unknown as { server?: ServerFacts }).server
  return server ?? {}
}

/** A plain value as the page shows it: objects and lists as JSON in `<code>`. */
function shown(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? h(String(value)) : `<code>${h(JSON.stringify(value))}</code>`
}

function facts(record: Record<string, unknown>): string {
  return `<dl class="facts">${Object.entries(record)
    .map(([name, value]) => `<dt>${h(name)}</dt><dd>${shown(value)}</dd>`)
    .join('')}</dl>`
}

/** GET /admin: counts (what is cheap to count), storage and nodes when the core exposes them. */
export const overviewPage: AdminPage = async (request) => {
  const base = request.deps.surfaces.admin.basePath
  const { accounts, administration } = request.deps
  // one page of accounts: counting all of them would read the whole store on every visit
  const first = await accounts.page({ count: 100 })
  const accountCount = first.cursor === undefined ? String(first.accounts.length) : `more than ${first.accounts.length - 1}`
  const administrators = (await accounts.administratorIds()).length
  const clients = (await administration.clients.list()).length
  const state = serverFacts(request).state
  const stateBlock = state === undefined ? '<p class="muted">Storage and nodes: this server version does not report them yet.</p>' : facts(await state())
  sendPage(
    request.ctx,
    {
      title: 'Overview',
      nav: request.nav(''),
      content: `<dl class="facts">
<dt>Issuer</dt><dd><code>${h(request.deps.issuer.href)}</code></dd>
<dt>Accounts</dt><dd id="count-accounts"><a href="${h(`${base}/accounts`)}">${h(accountCount)}</a></dd>
<dt>Administrators</dt><dd id="count-admins">${administrators}</dd>
<dt>Clients</dt><dd id="count-clients"><a href="${h(`${base}/clients`)}">${clients}</a></dd>
<dt>Grants</dt><dd>listed per account and per client (counting them all reads every grant)</dd>
<dt>Recent sign-ins</dt><dd>not recorded by this server: each grant says when it was given</dd>
</dl>
<h2>Server</h2>
${stateBlock}`,
    },
    request.deps.branding,
  )
}

/** GET /admin/resources: the resources served (configured, stored, the server's own). */
export const resourcesPage: AdminPage = async (request) => {
  const stored = await request.deps.resources.list()
  const rows = [
    ...request.deps.configuredResources.map((resource) => ({ resource, source: 'configured' })),
    ...stored.map((resource) => ({ resource, source: 'stored' })),
    ...builtInResources(request.deps.issuer).map((resource) => ({ resource, source: 'built-in' })),
  ].map(({ resource, source }) => [`<code>${h(resource.uri)}</code>`, h(resource.name ?? ''), h(resource.scopes.join(' ')), h(source)])
  sendPage(
    request.ctx,
    {
      title: 'Resources',
      nav: request.nav('/resources'),
      content: `${table('Protected resources', ['Identifier', 'Name', 'Scopes', 'Source'], rows, 'No resources.')}
<p class="muted">Stored resources are added, changed and removed with the admin API or <code>mcp-auth resources</code>; configured ones in the configuration.</p>`,
    },
    request.deps.branding,
  )
}

/** GET /admin/keys: the signing keys per node, when the core exposes them. */
export const keysPage: AdminPage = async (request) => {
  const keys = serverFacts(request).keys
  const content =
    keys === undefined
      ? '<p class="muted">This server version does not report its keys to the console yet: see <code>docs/deployment.md</code> for rotation.</p>'
      : `<pre><code>${h(JSON.stringify(await keys(), null, 2))}</code></pre>`
  sendPage(request.ctx, { title: 'Signing keys', nav: request.nav('/keys'), content }, request.deps.branding)
}
