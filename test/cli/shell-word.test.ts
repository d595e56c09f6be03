import { describe, expect, it } from 'vitest'
import { shellWord } from '../../src/cli/shell-word.js'

describe('shellWord', () => {
  it('leaves a plain path as it is and quotes one a shell would split or expand', () => {
    expect(shellWord('/var/backups/mcp-auth/2026-11-26')).toBe('/var/backups/mcp-auth/2026-11-26')
    expect(shellWord('/tmp/my backups')).toBe("'/tmp/my backups'")
    expect(shellWord("/tmp/it's")).toBe("'/tmp/it'\\''s'")
    expect(shellWord('/tmp/$HOME')).toBe("'/tmp/$HOME'")
  })
})
