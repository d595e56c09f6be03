// @modelcontextprotocol/conformance 0.1.16 imports `globSync` from 'fs', which Node gained in 22.
// Preload this file (node --import) on Node 20: a module hook points the suite's 'fs' import at
// fs-with-glob-sync.mjs, which re-exports node:fs plus a minimal globSync. Node 22+ is untouched.
import fs from 'node:fs'
import { register } from 'node:module'

if (typeof fs.globSync !== 'function') {
  register('./fs-glob-sync-hook.mjs', import.meta.url)
}
