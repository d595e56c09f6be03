#!/usr/bin/env node
/**
 * Writes docs/configuration.md from src/config/defaults.ts: every option's path, its default value
 * and its doc comment, grouped as the file groups them. The file is read with the TypeScript
 * compiler API (its syntax tree, nothing is run), so a value shows as it is written there and,
 * when it is arithmetic, worked out (`10 * 60_000` is 600,000 ms, 10 min).
 *
 *   node scripts/configuration-reference.mjs           writes the page (npm run docs:config)
 *   node scripts/configuration-reference.mjs --check   exits 1, with the differing lines, when the
 *                                                       page and defaults.ts disagree
 *   --defaults FILE, --page FILE                        other paths (the test checks altered copies)
 *
 * An option without a doc comment is an error in both modes: every default says why it is what it is.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import ts from 'typescript'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    defaults: { type: 'string', default: join(root, 'src/config/defaults.ts') },
    page: { type: 'string', default: join(root, 'docs/configuration.md') },
  },
})

/** The text of the `/** … *\/` comment just before a node, as one paragraph; undefined without one. */
function docComment(source, node) {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? []
  const doc = ranges.filter((range) => source.text.startsWith('/**', range.pos)).at(-1)
  if (doc === undefined) return undefined
  return source.text
    .slice(doc.pos + 3, doc.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, '').trim())
    .filter((line) => line !== '')
    .join(' ')
}

/** Initializers of the file's top-level `const`s, so an option set to one (`algorithms: jwsAlgorithms`) shows its value. */
const constants = new Map()

/** The expression without `as …`, `satisfies …` and parentheses, and a file constant's name replaced by its value. */
function bare(expression) {
  let e = expression
  for (;;) {
    if (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)) e = e.expression
    else if (ts.isIdentifier(e) && constants.has(e.text)) e = constants.get(e.text)
    else return e
  }
}

/** The number an arithmetic expression of literals comes to; undefined for anything else. */
function arithmetic(expression) {
  const e = bare(expression)
  if (ts.isNumericLiteral(e)) return Number(e.text)
  if (ts.isBinaryExpression(e)) {
    const left = arithmetic(e.left)
    const right = arithmetic(e.right)
    if (left === undefined || right === undefined) return undefined
    switch (e.operatorToken.kind) {
      case ts.SyntaxKind.AsteriskToken:
        return left * right
      case ts.SyntaxKind.PlusToken:
        return left + right
      case ts.SyntaxKind.MinusToken:
        return left - right
      case ts.SyntaxKind.SlashToken:
        return left / right
    }
  }
  return undefined
}

const number = (n) => n.toLocaleString('en-US')

/** A duration in words: 600000 ms → "10 min", 86400 s → "1 day". */
function inWords(ms) {
  const units = [
    [24 * 60 * 60_000, 'day', 'days'],
    [60 * 60_000, 'h', 'h'],
    [60_000, 'min', 'min'],
    [1_000, 's', 's'],
  ]
  for (const [size, one, many] of units) {
    if (ms >= size && ms % size === 0) return `${number(ms / size)} ${ms === size ? one : many}`
  }
  return undefined
}

function sizeInWords(bytes) {
  for (const [size, unit] of [
    [1024 * 1024, 'MiB'],
    [1024, 'KiB'],
  ]) {
    if (bytes >= size && bytes % size === 0) return `${number(bytes / size)} ${unit}`
  }
  return undefined
}

/** The default as the page shows it: the number with its unit where the name gives one, else the source. */
function rendered(path, expression, source) {
  const name = path.at(-1)
  const value = arithmetic(expression)
  if (value !== undefined) {
    const seconds = /Seconds$/.test(name) || path.includes('ttl')
    if (/Ms$/.test(name)) {
      const words = inWords(value)
      return `${number(value)} ms${words !== undefined && value >= 1_000 ? ` (${words})` : ''}`
    }
    if (seconds) {
      const words = inWords(value * 1_000)
      return `${number(value)} s${words !== undefined && value >= 60 ? ` (${words})` : ''}`
    }
    if (/Bytes$/.test(name)) {
      const words = sizeInWords(value)
      return `${number(value)} bytes${words !== undefined ? ` (${words})` : ''}`
    }
    return /port$/i.test(name) ? String(value) : number(value)
  }
  const text = bare(expression)
    .getText(source)
    .replace(/\s+/g, ' ')
    .replace(/,\s*([\]}])/g, ' $1')
    .replace(/\[ /g, '[')
    .replace(/ \]/g, ']')
  return `\`${text.replace(/`/g, "'")}\``
}

/**
 * An object literal is a group of options when an entry of it has a comment of its own, or when it
 * has none itself (so its entries are each reported without one); an object commented as a whole
 * (`routes`, `scrypt`) is one option.
 */
function isGroup(expression, comment, source) {
  const e = bare(expression)
  return ts.isObjectLiteralExpression(e) && (comment === undefined || e.properties.some((p) => docComment(source, p) !== undefined))
}

function propertyName(property, source) {
  const name = property.name
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText(source)
}

/** Reads defaults.ts: the groups in file order, each with its options; and the options with no comment. */
function read(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer && declaration.name.text !== 'defaults') constants.set(declaration.name.text, declaration.initializer)
    }
  }
  let top
  source.forEachChild(function visit(node) {
    if (ts.isVariableDeclaration(node) && node.name.getText(source) === 'defaults' && node.initializer) top = bare(node.initializer)
    else node.forEachChild(visit)
  })
  if (top === undefined || !ts.isObjectLiteralExpression(top)) throw new Error(`${file}: no \`export const defaults = { … }\``)
  const groups = []
  const uncommented = []
  function walk(object, path, comment) {
    const group = { path, comment, options: [] }
    groups.push(group)
    const nested = []
    for (const property of object.properties) {
      if (ts.isShorthandPropertyAssignment(property)) {
        const here = [...path, property.name.text]
        const text = docComment(source, property)
        if (text === undefined) uncommented.push(here.join('.'))
        group.options.push({ path: here.join('.'), value: rendered(here, property.name, source), comment: text ?? '' })
        continue
      }
      if (!ts.isPropertyAssignment(property)) throw new Error(`${file}: ${property.getText(source).slice(0, 40)}: only \`name: value\` entries are supported`)
      const here = [...path, propertyName(property, source)]
      const text = docComment(source, property)
      if (isGroup(property.initializer, text, source)) nested.push([bare(property.initializer), here, text])
      else {
        if (text === undefined) uncommented.push(here.join('.'))
        group.options.push({ path: here.join('.'), value: rendered(here, property.initializer, source), comment: text ?? '' })
      }
    }
    for (const [child, here, text] of nested) walk(child, here, text)
  }
  for (const property of top.properties) {
    const name = propertyName(property, source)
    const text = docComment(source, property)
    if (ts.isPropertyAssignment(property) && ts.isObjectLiteralExpression(bare(property.initializer))) walk(bare(property.initializer), [name], text)
    else throw new Error(`${file}: top-level entry ${name} is not a group of options`)
  }
  return { groups, uncommented }
}

const intro = `# Configuration reference

<!-- Generated by scripts/configuration-reference.mjs from src/config/defaults.ts: do not edit.
     Change a default or its comment there, then run \`npm run docs:config\`. -->

Every default of mcp-auth, with the reason for its value. This page is generated from
[src/config/defaults.ts](../src/config/defaults.ts), the one place where \`src/\` keeps a timeout,
a size, a limit, a path or a scope; a test (test/docs/configuration-reference.test.ts) fails when
the two disagree.

## How configuration reaches these values

A value is taken from the first of these that sets it:

1. **A command-line option** of a serving command, such as \`--port\`, \`--issuer\`, \`--data-dir\`,
   \`--redis\` or \`--drain-delay\` (\`mcp-auth <command> --help\` lists them).
2. **An environment variable** the CLI reads where the option is not given:
   - \`MCP_AUTH_REDIS_URL\`: the Redis of a deployment of several nodes (as \`--redis\`);
   - \`MCP_AUTH_DRAIN_DELAY\`: seconds of draining before a shutdown (as \`--drain-delay\`, \`cli.drainDelayMs\`);
   - \`PORT\`: the port of \`mcp-auth start\` (as \`--port\`, \`mainJob.port\`);
   - \`MCP_AUTH_DEMO_PASSWORD\`: the demo account's password on \`mcp-auth start\`;
   - \`MCP_AUTH_PASSWORD\`: a new account's password for \`mcp-auth users add\`;
   - \`MCP_AUTH_CLIENT_SECRET\`: a machine client's secret when neither \`--client-secret\` nor \`--client-secret-file\` is given, so it is not on a command line.
3. **The configuration file** given with \`--config FILE\` (JSON; see
   [config/auth-server.example.json](../config/auth-server.example.json) and
   [config/README.md](../config/README.md)), or **the options object** passed to the library's
   functions (\`createAuthorizationServer\`, \`createProtectedMcpApp\`, \`McpServer\`…). Unknown keys
   and bad values are refused at start, with their path.
4. **The default** below.

The paths below are where each default sits in defaults.ts; the key that overrides it in a
configuration file or an options object is named on the page of its area, and may differ.

Not every default is configurable: some are bounds the code keeps whatever the deployment (a
cache's size, a header's longest length). The pages that explain each area:
[the authorization server](authorization-server.md), [running several nodes](deployment.md),
[protecting MCP servers](protecting-mcp-servers.md), [client login](client-login.md),
[machine clients](machine-clients.md), [delegation](delegation.md),
[MCP 2026-07-28](mcp-2026-07-28.md) and [performance](performance.md).

Durations say their unit (ms or s) as the option's name does; sizes in bytes.
`

/** The page for these groups. */
function page(groups) {
  const lines = [intro]
  for (const group of groups) {
    const depth = Math.min(group.path.length + 1, 6)
    lines.push(`${'#'.repeat(depth)} \`${group.path.join('.')}\``, '')
    if (group.comment !== undefined) lines.push(group.comment, '')
    for (const option of group.options) lines.push(`- **\`${option.path}\`** = ${option.value}. ${option.comment}`.trimEnd())
    if (group.options.length > 0) lines.push('')
  }
  return `${lines.join('\n').trimEnd()}\n`
}

/** The first differing lines, as a diff would show them. */
function difference(expected, actual) {
  const want = expected.split('\n')
  const have = actual.split('\n')
  const out = []
  for (let i = 0; i < Math.max(want.length, have.length) && out.length < 20; i++) {
    if (want[i] === have[i]) continue
    out.push(`@@ line ${i + 1}`)
    if (have[i] !== undefined) out.push(`- ${have[i]}`)
    if (want[i] !== undefined) out.push(`+ ${want[i]}`)
  }
  return out.join('\n')
}

/** A path as messages show it: relative inside the repository, else as given. */
function shown(path) {
  const inside = relative(root, path)
  return inside.startsWith('..') ? path : inside
}

const defaultsFile = values.defaults
const pageFile = values.page
const { groups, uncommented } = read(defaultsFile)
if (uncommented.length > 0) {
  console.error(`${shown(defaultsFile)}: these options have no doc comment (say what each controls and why its value):\n  ${uncommented.join('\n  ')}`)
  process.exit(1)
}
const expected = page(groups)
if (values.check) {
  let actual = ''
  try {
    actual = readFileSync(pageFile, 'utf8')
  } catch {
    console.error(`${shown(pageFile)} is missing: run npm run docs:config`)
    process.exit(1)
  }
  if (actual !== expected) {
    console.error(`${shown(pageFile)} disagrees with ${shown(defaultsFile)} (- on the page, + from defaults.ts); run npm run docs:config:\n${difference(expected, actual)}`)
    process.exit(1)
  }
  console.log(`${shown(pageFile)} agrees with ${shown(defaultsFile)}`)
} else {
  writeFileSync(pageFile, expected)
  console.log(`wrote ${shown(pageFile)}`)
}
