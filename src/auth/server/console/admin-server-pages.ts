import { builtInResources } from '../admin/built-in-resources.js'
import type { AdminPage } from './console-deps.js'
import { h, sendPage, table } from './console-view.js'

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
  const state = await request.deps.server.state()
  const { nodes, storage, version } = state as { nodes: Array<Record<string, unknown>>; storage: Record<string, unknown>; version: string }
  const stateBlock = `<dl class="facts"><dt>Version</dt><dd>${h(version)}</dd></dl>
${facts(storage)}
${table(
  'Nodes',
  ['Node', 'Host', 'Version', 'Started', 'Last seen', 'Gateway children'],
  nodes.map((node) => [
    h(`${String(node['id'])}${node['this_node'] === true ? ' (this one)' : ''}`),
    h(String(node['host'])),
    h(String(node['version'])),
    h(String(node['started_at'])),
    h(String(node['last_seen_at'])),
    h(String(node['children'])),
  ]),
  'No node reported.',
)}`
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

/** GET /admin/keys: the signing key each node signs with, and which still sign with an old one. */
export const keysPage: AdminPage = async (request) => {
  const keys = (await request.deps.server.keys()) as {
    fingerprint?: string
    nodes: Array<{ id: string; host: string; fingerprint: string; current: boolean }>
    old_key_nodes: unknown[]
  }
  const rows = keys.nodes.map((node) => [
    h(node.id),
    h(node.host),
    `<code>${h(node.fingerprint)}</code>`,
    node.current ? 'current key' : '<strong>old key</strong>: copy the new jwks.json here and restart',
  ])
  const content = `<dl class="facts"><dt>The deployment's key</dt><dd><code>${h(keys.fingerprint ?? 'not recorded')}</code></dd></dl>
${table('Signing keys per node', ['Node', 'Host', 'Fingerprint', 'Signs with'], rows, 'No node reported.')}
<p class="muted">${keys.old_key_nodes.length === 0 ? 'Every node signs with the deployment’s key.' : `${keys.old_key_nodes.length} node(s) still sign with an old key.`} Rotation: <code>POST /admin/api/keys/rotate</code> or <code>mcp-auth keys rotate</code>, then copy <code>jwks.json</code> to every node and restart them one at a time (docs/deployment.md).</p>`
  sendPage(request.ctx, { title: 'Signing keys', nav: request.nav('/keys'), content }, request.deps.branding)
}
