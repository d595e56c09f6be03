import { configDefaults, defineConfig } from 'vitest/config'

/**
 * The slowest end-to-end files: real browsers, peers (the conformance suites, the SDK's and Python's
 * servers), several nodes behind HAProxy, the docs' commands and the packed package. CI runs the
 * whole suite on the machine's Node, then only the rest on the second Node line (`.ci/run` sets
 * MCP_AUTH_TESTS=unit-and-integration): what differs between Node lines is caught by the unit and
 * integration files, and two full runs no longer fit CI's time.
 */
const END_TO_END = [
  'test/e2e/**',
  'test/conformance/**',
  'test/docs/**',
  'test/package/packed-package.test.ts',
  'test/**/*chromium*.test.ts',
  'test/app/home-page.test.ts',
  'test/**/*cluster*.test.ts',
  'test/cli/redis-administration.test.ts',
  'test/fixtures/python-mcp-server.test.ts',
]
const unitAndIntegration = process.env['MCP_AUTH_TESTS'] === 'unit-and-integration'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: unitAndIntegration ? [...configDefaults.exclude, ...END_TO_END] : configDefaults.exclude,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
    // one notice for the whole run on Node 20, then no oidc-provider warning per test process
    globalSetup: ['test/helpers/node-support-global-setup.ts'],
    setupFiles: ['test/helpers/setup-quiet-runtime.ts'],
    // the suite runs quiet (no access line per request) unless a test asks for a level; CLI children inherit it
    env: { MCP_AUTH_LOG_LEVEL: 'warn' },
  },
})
