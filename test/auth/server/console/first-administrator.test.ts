import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'

let stack: ProtectedStack

beforeAll(async () => {
  stack = await startProtectedStack()
})
afterAll(() => stack.stop())

describe('the first administrator', () => {
  it('makes one setup link per store: of two starts at once one prints it, the other says when it was printed', async () => {
    const [first, second] = await Promise.all([stack.as.firstAdministrator(), stack.as.firstAdministrator()])
    const kinds = [first.kind, second.kind].sort()
    expect(kinds).toEqual(['link', 'printed'])
    const link = [first, second].find((notice) => notice.kind === 'link') as { url: string; expiresAt: number }
    expect(link.url).toMatch(new RegExp(`^${stack.origin}/admin/setup/[A-Za-z0-9_-]{43}$`))
    const later = await stack.as.firstAdministrator()
    expect(later).toMatchObject({ kind: 'printed', expiresAt: link.expiresAt })
  })

  it('creates one administrator through the setup link, never the demo account, and then the link is gone', async () => {
    const notice = await stack.as.firstAdministrator()
    expect(notice.kind).toBe('printed')
    // the link itself is only in what the first start printed: take it from a fresh store instead
    const fresh = await startProtectedStack()
    try {
      const made = await fresh.as.firstAdministrator()
      if (made.kind !== 'link') throw new Error('expected a link')
      const path = new URL(made.url).pathname
      const visitor = new ConsoleVisitor(fresh.origin, { username: 'ada', password: 'ada password 1' })
      const demo = await visitor.submit(path, 'create-admin', { username: 'demo', password: 'demo password 9', confirm: 'demo password 9' })
      expect(demo.status).toBe(400)
      expect(demo.html).toContain('never an administrator')
      const created = await visitor.submit(path, 'create-admin', { username: 'ada', password: 'ada password 1', confirm: 'ada password 1' })
      expect(created.html).toContain('id="admin-created"')
      // nobody was signed in by it
      expect(visitor.jar.header(new URL(`${fresh.origin}/admin`))).not.toMatch(/mcp-auth-console=/)
      expect((await fresh.as.accounts.findByUsername('ada'))?.role).toBe('admin')
      expect((await visitor.open(path)).status).toBe(410)
      expect(await fresh.as.firstAdministrator()).toEqual({ kind: 'present' })
      // the new administrator signs in as anyone does
      const console = await visitor.open('/admin')
      expect(console.status).toBe(200)
      expect(console.html).toContain('Sign out ada')
    } finally {
      await fresh.stop()
    }
  })
})
