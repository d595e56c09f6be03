import { fileURLToPath } from 'node:url'

/** The built CLI (npm test builds first, so tests spawn what users run). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The stdio MCP server the gateway's tests run as a child (test/fixtures/gateway/). */
export const TEST_SERVER = fileURLToPath(new URL('../fixtures/gateway/stdio-test-server.mjs', import.meta.url))

/** server-everything's stdio server, unmodified (a devDependency). */
export const SERVER_EVERYTHING = fileURLToPath(new URL('../../node_modules/.bin/mcp-server-everything', import.meta.url))
