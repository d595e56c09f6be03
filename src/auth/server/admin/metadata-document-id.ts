/** A client_id that names a client ID metadata document (an https URL with a path). */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false
  const url = new URL(clientId)
  return url.protocol === 'https:' && url.pathname !== '/' && url.hash === ''
}
