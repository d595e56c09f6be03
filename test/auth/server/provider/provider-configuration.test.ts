// Issue 29 (item 2): providerConfiguration is split into named pieces with no change. This test was
// written before the split, and its snapshot recorded from the one-function version: the plain
// data of the assembled configuration (every key and value; functions by presence) stays the same.
// Issue 32 added one login check on purpose (`sessions_ended`: a password change ends the
// account's other sessions), recorded in both snapshots.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { OidcAdapter } from '../../../../src/storage/types.js'
import type { AccountStore } from '../../../../src/auth/server/stores/account-store.js'
import type { ConsentStore } from '../../../../src/auth/server/stores/consent-store.js'
import { resolveOptions } from '../../../../src/auth/server/options.js'
import { providerConfiguration, type ProviderConfigurationDeps } from '../../../../src/auth/server/provider/provider-configuration.js'
import { ScopePolicy } from '../../../../src/auth/server/provider/scope-policy.js'

/** The configuration as data: functions by presence, Buffers by content, undefined said, keys sorted. */
function plain(value: unknown): unknown {
  if (typeof value === 'function') return '[function]'
  if (value === undefined) return '[undefined]'
  if (Buffer.isBuffer(value)) return `[buffer ${value.toString('hex')}]`
  if (Array.isArray(value)) return value.map(plain)
  if (value instanceof Set || value instanceof Map) throw new TypeError('a Set or Map in the configuration: record it explicitly')
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, plain((value as Record<string, unknown>)[key])]),
    )
  }
  return value
}

/** A configuration recorded (as `plain` gives it) from the one-function version, before the split. */
const recorded = (name: string): unknown => JSON.parse(readFileSync(new URL(`./${name}`, import.meta.url), 'utf8'))

function deps(options: ReturnType<typeof resolveOptions>, upstream: boolean): ProviderConfigurationDeps {
  return {
    adapter: function Adapter() {} as unknown as new (name: string) => OidcAdapter,
    jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd', kid: 'k1', alg: 'ES256', use: 'sig' }] },
    cookieKeys: ['cookie-key-1', 'cookie-key-2'],
    accounts: {} as AccountStore,
    consents: {} as ConsentStore,
    scopes: new ScopePolicy(options.resources, options.clientCredentials.openRegistrationScopes),
    ...(upstream ? { upstreamLoginNeeded: async () => false } : {}),
    dpopNonceSecret: Buffer.alloc(32, 7),
  }
}

describe('providerConfiguration', () => {
  it('assembles the same configuration as before the split (defaults, one resource)', () => {
    const options = resolveOptions({ issuer: 'http://localhost:4000', dataDir: '/nonexistent' })
    const configuration = providerConfiguration(options, deps(options, false))
    expect(plain(configuration)).toStrictEqual(recorded('provider-configuration.defaults.json'))
  })

  it('assembles the same configuration as before the split (mounted, several resources, clients, delegated login)', () => {
    const options = resolveOptions({
      issuer: 'https://auth.example.com/oauth',
      dataDir: '/nonexistent',
      resources: [
        { uri: 'https://mcp.example.com/mcp', scopes: ['mcp', 'mcp:admin'], defaultScopes: ['mcp'], aliases: ['https://mcp.example.com/sse'], requireDpop: true },
        { uri: 'https://files.example.com/mcp', scopes: ['files:read', 'files:write'], tokenFormat: 'opaque', accessTokenTtlSeconds: 120 },
      ],
      clients: [{ client_id: 'ci', client_secret: 'a-secret-of-enough-length', grant_types: ['client_credentials'], scope: 'mcp' }],
      registration: { enabled: false, initialAccessToken: 'an-initial-access-token' },
      clientIdMetadataDocuments: { enabled: false },
      ttl: { accessToken: 600, refreshToken: 86_400 },
      accessTokenAlg: 'RS256',
      upstream: { issuer: 'https://idp.example.com', clientId: 'mcp-auth', clientSecret: 'upstream-secret' },
    })
    const configuration = providerConfiguration(options, deps(options, true))
    expect(plain(configuration)).toStrictEqual(recorded('provider-configuration.mounted.json'))
  })
})
