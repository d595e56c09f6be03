/** What the pages call a client that registered no `client_name`. */
export const UNNAMED_CLIENT = 'An unnamed application'

/**
 * The name the pages show for a client: its registered `client_name`; else, for a client ID
 * metadata document (an https URL as client_id), that document's host; else
 * {@link UNNAMED_CLIENT}. The client_id itself is shown apart, in small print.
 */
export function clientDisplayName(clientId: string, clientName: string | undefined): string {
  if (clientName !== undefined && clientName.trim() !== '') return clientName
  const url = URL.parse(clientId)
  if (url !== null && url.protocol === 'https:') return url.host
  return UNNAMED_CLIENT
}
