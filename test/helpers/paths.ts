import { fileURLToPath } from 'node:url'

/** The built CLI (npm test builds first, so tests spawn what users run). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))
