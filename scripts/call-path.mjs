// The folders of src/ an authenticated request walks through, in call order, and the hops between
// them (docs/architecture.md, "How the hops are counted"). Runs `mcp-auth start`'s stack
// (createMainJob, the demo MCP server, embedded storage in a temporary directory) in this process
// from a built tree's dist/, with every function of dist/ instrumented at load time to record its
// entry. It logs the demo user in through the real login and consent pages (a public client, PKCE)
// and records, each after a warm-up of the same request, from the server handler's entry to the
// response's 'finish':
//   tools-call             an authenticated tools/call over Streamable HTTP, in a 2025-11-25 session
//   tools-call-2026-07-28  the same call in the 2026-07-28 revision (no session, no handshake)
//   token-code             a token request with grant_type=authorization_code and the PKCE verifier
//   token-refresh          a token request with grant_type=refresh_token
// A hop is a change of folder between two consecutive recorded entries; a hop back enters a folder
// the walk has already been in.
// Usage: node scripts/call-path.mjs [--root DIR] [--path NAME,…] [--depth N] [--packages NAME,…] [--calls] [--json]
//   --root      the repository whose dist/ runs (default: this one; build it first: npm run build)
//   --path      which of the paths above (default: all four)
//   --depth     count a folder by its first N names only (2: auth/server/provider is auth/server),
//               to compare trees whose rooms have a different number of sub-folders
//   --packages  also record the functions of these ESM packages, each counted as one folder (not
//               in the counts of docs/architecture.md, which count src/ folders only)
//   --calls     also print every recorded function entry (file, line, function)
//   --json      one JSON object per path instead of text
import { register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) await main()

// ---- the load hook (runs on the loader thread) ----

let distUrl
let packages
let ts

/** Receives the dist/ URL to instrument from `register`. */
export async function initialize(data) {
  distUrl = data.distUrl
  packages = data.packages
  ts = (await import('typescript')).default
}

/** Instruments every module of dist/ (not node_modules): each function body starts with a record call. */
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context)
  if (!/\.[cm]?js$/.test(url) || result.format !== 'module') return result
  // a module of dist/ is named by its path there (app/main-job.js); a package's by `package:path`
  const pkg = packages.find((name) => url.includes(`/node_modules/${name}/`))
  if (pkg === undefined && (!url.startsWith(distUrl) || url.includes('/node_modules/'))) return result
  const file = pkg === undefined ? url.slice(distUrl.length) : `${pkg}:${url.slice(url.lastIndexOf(`/node_modules/${pkg}/`) + pkg.length + 15)}`
  const source = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source)
  return { ...result, source: instrument(file, source) }
}

function instrument(file, source) {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const edits = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body !== undefined) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1
      const record = `globalThis.__callPath?.(${JSON.stringify(file)}, ${JSON.stringify(nameOf(node, sf))}, ${line});`
      if (ts.isBlock(node.body)) edits.push([node.body.getStart(sf) + 1, record])
      else {
        edits.push([node.body.getStart(sf), `{ ${record} return (`])
        edits.push([node.body.getEnd(), ') }'])
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  edits.sort((a, b) => b[0] - a[0])
  let out = source
  for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at)
  return out
}

/** A readable name: `Class.method`, `functionName`, `variable`, `property`, or `outer/λ` for an unnamed function. */
function nameOf(node, sf) {
  const own = (n) => (n.name !== undefined && (ts.isIdentifier(n.name) || ts.isPrivateIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined)
  const container = (n) => {
    for (let p = n.parent; p !== undefined; p = p.parent) {
      if (ts.isClassLike(p)) {
        if (own(p) !== undefined) return own(p)
        const holder = p.parent // an unnamed class: `static #Hooks = class …`, `const Base = class …`
        if (holder !== undefined && ts.isPropertyDeclaration(holder)) return `${container(holder)}.${own(holder)}`
        if (holder !== undefined && ts.isVariableDeclaration(holder) && own(holder) !== undefined) return own(holder)
        return 'class'
      }
      if (ts.isFunctionLike(p)) return nameOf(p, sf)
      if (ts.isObjectLiteralExpression(p)) {
        const holder = p.parent
        if (holder !== undefined && (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && own(holder) !== undefined) return own(holder)
      }
    }
    return undefined
  }
  if (ts.isConstructorDeclaration(node)) return `${container(node)}.constructor`
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const kind = ts.isGetAccessor(node) ? 'get ' : ts.isSetAccessor(node) ? 'set ' : ''
    const outer = container(node)
    return `${kind}${outer === undefined ? '' : `${outer}.`}${own(node) ?? '[computed]'}`
  }
  if (own(node) !== undefined) return own(node)
  const holder = node.parent
  if (holder !== undefined && (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) && own(holder) !== undefined) {
    return ts.isPropertyDeclaration(holder) ? `${container(holder)}.${own(holder)}` : own(holder)
  }
  return `${container(node) ?? '(module)'}/λ`
}

// ---- the run (main thread) ----

async function main() {
  const { parseArgs } = await import('node:util')
  const { readFileSync, existsSync } = await import('node:fs')
  const { mkdtemp, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join, resolve, dirname } = await import('node:path')
  const { createServer } = await import('node:http')
  const { createHash, randomBytes } = await import('node:crypto')
  const { pathToFileURL, fileURLToPath } = await import('node:url')
  // the benchmarks' plain-JS form hand-off: the login and consent pages as a browser passes them
  const { formLogin } = await import('../bench/fixtures/form-handoff.mjs')

  const { values } = parseArgs({
    options: {
      root: { type: 'string', default: resolve(dirname(fileURLToPath(import.meta.url)), '..') },
      path: { type: 'string', default: 'tools-call,tools-call-2026-07-28,token-code,token-refresh' },
      packages: { type: 'string', default: '' },
      depth: { type: 'string' },
      calls: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  })
  const root = resolve(values.root)
  // a request that never finishes would leave the run waiting for its record: give up instead
  setTimeout(() => {
    console.error('call-path: no answer within 60 s')
    process.exit(1)
  }, 60_000).unref()
  const paths = values.path.split(',').map((p) => p.trim())
  const depth = values.depth === undefined ? Number.POSITIVE_INFINITY : Number(values.depth)
  if (!(depth >= 1)) throw new Error('--depth takes a whole number, 1 or more')
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const entry = join(root, manifest.exports['./auth-server'].default)
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build ${root} first (npm run build)`)

  const packages = values.packages
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
  register(import.meta.url, { data: { distUrl: `${pathToFileURL(join(root, 'dist')).href}/`, packages } })
  let events
  globalThis.__callPath = (file, name, line) => events?.push([file, name, line])

  const { createMainJob } = await import(pathToFileURL(entry).href)
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-auth-call-path-'))
  let handler = (_req, res) => res.writeHead(503).end()
  let tracing // the next request the server receives is recorded
  const http = createServer((req, res) => {
    if (tracing !== undefined) {
      const done = tracing
      tracing = undefined
      events = []
      res.on('finish', () => {
        done(events)
        events = undefined
      })
    }
    handler(req, res)
  })
  await new Promise((ok) => http.listen(0, '127.0.0.1', ok))
  const origin = `http://127.0.0.1:${http.address().port}`
  const password = randomBytes(9).toString('base64url')
  const job = await createMainJob({ origin, dataDir, demoPassword: password })
  handler = job.handler
  const walks = {}

  /** Sends `request()` with recording on; returns the response and the recorded entries. */
  const traced = async (name, request) => {
    const recorded = new Promise((ok) => {
      tracing = ok
    })
    const response = await request()
    const body = await response.text()
    walks[name] = await recorded
    return { response, body }
  }

  try {
    const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()
    const redirectUri = `${origin}/call-path-callback`
    const registration = await fetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    })
    if (registration.status !== 201) throw new Error(`registration answered ${registration.status}: ${await registration.text()}`)
    const client = await registration.json()
    const resource = `${origin}/mcp`

    const tokenRequest = (params) =>
      fetch(metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: client.client_id, ...params }),
      })
    const codeTokens = async (name) => {
      const verifier = randomBytes(32).toString('base64url')
      const challenge = createHash('sha256').update(verifier).digest('base64url')
      const authorize = new URL(metadata.authorization_endpoint)
      for (const [k, v] of Object.entries({
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'mcp',
        resource,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: randomBytes(8).toString('hex'),
      })) {
        authorize.searchParams.set(k, v)
      }
      const code = (await formLogin(authorize, { username: 'demo', password, redirectUri })).callback.searchParams.get('code')
      if (code === null) throw new Error('the login ended without a code')
      const params = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, resource }
      const { response, body } = name === undefined ? await read(tokenRequest(params)) : await traced(name, () => tokenRequest(params))
      if (response.status !== 200) throw new Error(`the code's token request answered ${response.status}: ${body}`)
      return JSON.parse(body)
    }
    const refresh = async (name, refreshToken) => {
      const params = { grant_type: 'refresh_token', refresh_token: refreshToken, resource }
      const { response, body } = name === undefined ? await read(tokenRequest(params)) : await traced(name, () => tokenRequest(params))
      if (response.status !== 200) throw new Error(`the refresh token request answered ${response.status}: ${body}`)
      return JSON.parse(body)
    }

    // warm-up, then the recorded requests
    const first = await codeTokens(undefined)
    await refresh(undefined, first.refresh_token)
    const tokens = await codeTokens(paths.includes('token-code') ? 'token-code' : undefined)
    const renewed = await refresh(paths.includes('token-refresh') ? 'token-refresh' : undefined, tokens.refresh_token)

    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${renewed.access_token}` }
    const post = (message, extra = {}) => fetch(resource, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(message) })
    if (paths.includes('tools-call')) {
      const init = await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'call-path', version: '1' } },
      })
      const sessionId = init.headers.get('mcp-session-id')
      await init.text()
      if (init.status !== 200 || sessionId === null) throw new Error(`initialize answered ${init.status} without a session`)
      const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text()
      const call = (id) => post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, session)
      for (const id of [1, 2]) await (await call(id)).text()
      const { response, body } = await traced('tools-call', () => call(3))
      if (response.status !== 200 || !body.includes('"text":"hi"')) throw new Error(`tools/call answered ${response.status}: ${body.slice(0, 300)}`)
    }
    if (paths.includes('tools-call-2026-07-28')) {
      // no session: the revision, the client's capabilities and the method travel with the request
      const revision = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
      const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
      const call = (id) => post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta } }, revision)
      for (const id of [1, 2]) await (await call(id)).text()
      const { response, body } = await traced('tools-call-2026-07-28', () => call(3))
      if (response.status !== 200 || !body.includes('"text":"hi"')) throw new Error(`the 2026-07-28 tools/call answered ${response.status}: ${body.slice(0, 300)}`)
    }
  } finally {
    await job.close()
    http.closeAllConnections?.()
    await new Promise((ok) => http.close(ok))
    await rm(dataDir, { recursive: true, force: true })
  }

  for (const name of paths) report(name, walks[name] ?? [])

  async function read(pending) {
    const response = await pending
    return { response, body: await response.text() }
  }

  /** Prints one path: the walk (runs of one folder collapsed, with the functions entered there) and its counts. */
  function report(name, entries) {
    const steps = []
    for (const [file, fn, line] of entries) {
      const folder = file.includes(':') ? file.slice(0, file.indexOf(':')) : file.includes('/') ? file.split('/').slice(0, -1).slice(0, depth).join('/') : '.'
      const last = steps.at(-1)
      if (last !== undefined && last.folder === folder) {
        if (last.functions.at(-1) !== fn) last.functions.push(fn)
      } else steps.push({ folder, functions: [fn] })
      if (values.calls) steps.at(-1).calls = [...(steps.at(-1).calls ?? []), `${file}:${line} ${fn}`]
    }
    const seen = new Set()
    let back = 0
    for (const [i, step] of steps.entries()) {
      step.back = seen.has(step.folder)
      if (i > 0 && step.back) back++
      seen.add(step.folder)
    }
    const counts = { entries: entries.length, folders: seen.size, hops: Math.max(steps.length - 1, 0), back }
    if (values.json) {
      console.log(JSON.stringify({ path: name, root, ...(Number.isFinite(depth) ? { depth } : {}), ...counts, walk: steps }))
      return
    }
    console.log(
      `\n${name} (${root}${Number.isFinite(depth) ? `, --depth ${depth}` : ''}): ${counts.hops} hops, ${counts.back} back into a folder already visited; ${counts.folders} folders, ${counts.entries} function entries`,
    )
    for (const [i, step] of steps.entries()) {
      const shown = step.functions.length > 4 ? [...step.functions.slice(0, 4), `… ${step.functions.length - 4} more`] : step.functions
      console.log(`${String(i).padStart(3)} ${step.back ? '↩' : ' '} ${step.folder}: ${shown.join(', ')}`)
      for (const c of step.calls ?? []) console.log(`          ${c}`)
    }
  }
}
