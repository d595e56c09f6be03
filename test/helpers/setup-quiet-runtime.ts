// Evaluated before every test file (vitest.config.ts setupFiles): test files that load oidc-provider
// directly, or a module of src/auth/server other than create-authorization-server.ts, then print
// no per-process "Unsupported runtime" warning on Node 20 either (issue 28, item 17).
import '../../src/auth/server/provider/unsupported-runtime-warning.js'
