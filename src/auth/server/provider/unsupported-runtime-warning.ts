/**
 * oidc-provider 9 prints "oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a
 * later LTS release." with console.warn when its module is evaluated on a Node.js release older
 * than 22 "Jod" (or not an LTS line): once per process, so 41 times in a test run on Node 20, and
 * on every start of a server. We still run on Node 20 (the whole suite passes there); the CLI says
 * so once, in its own words, when a server starts (src/cli/node-support-notice.ts).
 *
 * This module drops that one message and nothing else, the first time it is printed, then puts
 * console.warn back. It must be evaluated before oidc-provider: create-authorization-server.ts (the
 * one module through which the library and the CLI load oidc-provider) imports it first, and the
 * test run's setup file (test/helpers/setup-quiet-runtime.ts) before any test file.
 */
const MESSAGE = 'oidc-provider WARNING: Unsupported runtime.'
const INSTALLED = Symbol.for('mcp-auth.unsupported-runtime-warning')

// oidc-provider's own test (lib/index.js): no LTS name, or one before "Jod" (Node 22)
const lts = process.release.lts
const warned = lts === undefined || lts.charCodeAt(0) < 'Jod'.charCodeAt(0)
const flags = globalThis as { [INSTALLED]?: true }

if (warned && flags[INSTALLED] === undefined) {
  flags[INSTALLED] = true
  const original = console.warn
  const filtered = function warn(...args: unknown[]): void {
    // the message comes wrapped in colour codes when stderr is a terminal
    if (typeof args[0] === 'string' && args[0].includes(MESSAGE)) {
      if (console.warn === filtered) console.warn = original
      return
    }
    original.apply(console, args)
  }
  console.warn = filtered
}
