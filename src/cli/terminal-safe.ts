/**
 * Text another party chose (a dynamic client's `client_name`, a problem's `detail`) as one field of
 * a printed line: control characters, tabs and line ends included, become U+FFFD, so it can
 * neither drive the terminal (escape sequences) nor add fields or lines a script would read.
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, '\ufffd')
}
