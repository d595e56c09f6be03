import { rotateSigningKeys } from '../../auth/server/signing-keys.js'
import { defaults } from '../../config/defaults.js'
import { UsageError, type Command } from '../command.js'

export const keysCommand: Command = {
  name: 'keys',
  summary: "rotate the authorization server's signing keys",
  usage: `
Usage: mcp-auth keys rotate [--data-dir DIR]

Generates new signing keys; they sign from the server's next start. The previous keys stay
published at jwks_uri for ${defaults.authServer.keys.retiredKeyLifetimeSeconds / 3600} hours so tokens they signed still verify.

Options:
  --data-dir DIR   data directory (default ${defaults.storage.dataDir})
  -h, --help       show this help
`,
  options: { 'data-dir': { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1 || positionals[0] !== 'rotate') throw new UsageError("expected 'rotate'")
    const kids = await rotateSigningKeys((values['data-dir'] as string | undefined) ?? defaults.storage.dataDir)
    process.stdout.write(`new signing keys: ${kids.join(', ')} (restart the server to sign with them)\n`)
    return 0
  },
}
