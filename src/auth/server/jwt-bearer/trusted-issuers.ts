import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import { outboundFetch } from '../../../net/outbound-fetch.js'
import type { JwtBearerOptions } from '../options.js'
import { FetchedJwks } from './fetched-jwks.js'
import { IssuerDiscovery } from './issuer-discovery.js'

/** What a trusted issuer's subject (`sub`) stands for here. */
export type SubjectMapping = { client: string } | { account: string }

/** One configured issuer: its keys and its subject mapping (a Map: `sub` is outside input, `__proto__` included). */
export interface TrustedIssuer {
  issuer: string
  keys: JWTVerifyGetKey
  subjects: ReadonlyMap<string, SubjectMapping>
}

/** The configured issuers by `iss`, and a way to stop their background discovery. */
export interface TrustedIssuers {
  get(iss: string): TrustedIssuer | undefined
  close(): void
}

/**
 * Builds the trusted issuers of the JWT bearer grant: inline `jwks`, a `jwksUri`, or discovery.
 * Every fetch goes through the outbound fetch, to a private address only when the issuer's entry
 * says `allowPrivateAddresses: true`.
 */
export function trustedIssuers(options: JwtBearerOptions, log: (line: string) => void): TrustedIssuers {
  const discoveries: IssuerDiscovery[] = []
  const byIssuer = new Map<string, TrustedIssuer>()
  options.issuers.forEach((entry, index) => {
    const fetchImpl = outboundFetch({
      configuredBy: 'operator',
      allowPrivateAddresses: entry.allowPrivateAddresses === true,
      setting: `jwtBearer.issuers[${index}].allowPrivateAddresses`,
    })
    let keys: JWTVerifyGetKey
    if (entry.jwks !== undefined) keys = createLocalJWKSet(entry.jwks as JSONWebKeySet)
    else if (entry.jwksUri !== undefined) keys = new FetchedJwks(entry.issuer, entry.jwksUri, fetchImpl, log).getKey
    else {
      const discovery = new IssuerDiscovery(entry.issuer, fetchImpl, log)
      discoveries.push(discovery)
      let fetched: FetchedJwks | undefined
      keys = async (header, token) => {
        const uri = await discovery.jwksUri()
        fetched ??= new FetchedJwks(entry.issuer, uri, fetchImpl, log)
        return fetched.getKey(header, token)
      }
    }
    byIssuer.set(entry.issuer, { issuer: entry.issuer, keys, subjects: new Map(Object.entries(entry.subjects) as Array<[string, SubjectMapping]>) })
  })
  return {
    get: (iss) => byIssuer.get(iss),
    close: () => {
      for (const discovery of discoveries) discovery.close()
    },
  }
}
