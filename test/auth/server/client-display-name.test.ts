/** Issue 28, item 14: the pages call a client by its name, never by a long client_id. */
import { describe, expect, it } from 'vitest'
import { clientDisplayName, UNNAMED_CLIENT } from '../../../src/auth/server/interactions/client-display-name.js'

describe('clientDisplayName', () => {
  it('is the registered client_name', () => {
    expect(clientDisplayName('o13ciIEQJebUDsOrtljZeb_zPt2r90t4sJOS_CgoLVc', 'Team Desktop')).toBe('Team Desktop')
  })

  it('is the host of a client ID metadata document without a name', () => {
    expect(clientDisplayName('https://app.example.com/oauth/client.json', undefined)).toBe('app.example.com')
  })

  it('is “An unnamed application” for a generated id without a name, or a blank name', () => {
    expect(clientDisplayName('o13ciIEQJebUDsOrtljZeb_zPt2r90t4sJOS_CgoLVc', undefined)).toBe(UNNAMED_CLIENT)
    expect(clientDisplayName('nightly-report', '   ')).toBe(UNNAMED_CLIENT)
  })
})
