// Module resolve hook (see fs-glob-sync-shim.mjs): 'fs' imported from the conformance package
// resolves to our re-export that adds globSync.
const SHIM = new URL('./fs-with-glob-sync.mjs', import.meta.url).href

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: SHIM, shortCircuit: true }
  }
  return nextResolve(specifier, context)
}
