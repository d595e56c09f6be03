// oidc-provider's own list of special-use IPv4/IPv6 ranges (RFC 6890 and successors), reused by
// our outbound fetch instead of a second copy. The module has no types of its own.
declare module 'oidc-provider/lib/helpers/fetch_request.js' {
  export function isSpecialUseIP(address: string): boolean
}
