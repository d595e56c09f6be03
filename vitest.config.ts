import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
