// Issue 33: the console's audit page — the newest events in the console's layout, the same
// filters as `mcp-auth audit`, a page at a time, every value escaped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleVisitor } from '../../../helpers/console-browser.js'
import { startProtectedStack, type ProtectedStack } from '../../../helpers/protected-stack.js'

let stack: ProtectedStack
const root = { username: 'root', password: 'root password 1' }
const pat = { username: 'pat', password: 'pat password 1' }
/** The events this file records itself come after this; the server records its own too (each visitor's sign-in, its token). */
let from: string
let to: string
/** The console's audit page for `query`, within the moments this file recorded its events. */
const recorded = (query = ''): string => `/admin/audit?since=${from}&until=${to}${query === '' ? '' : `&${query}`}`

beforeAll(async () => {
  stack = await startProtectedStack()
  await stack.as.accounts.setUser(root.username, root.password, {}, undefined, 'admin')
  await stack.as.accounts.setUser(pat.username, pat.password, {}, ['mcp'])
  const observer = stack.as.observer
  await observer.trail!.flushed()
  await new Promise((resolve) => setTimeout(resolve, 5))
  from = new Date().toISOString()
  observer.audit({ type: 'sign-in.failed', result: 'failure', reason: 'wrong password', username: 'pat', addressGroup: '203.0.113.7', details: { factor: 'password' } })
  observer.audit({ type: 'client.blocked', result: 'success', actor: { username: 'root', channel: 'console' }, clientId: '<script>alert(1)</script>' })
  for (let i = 0; i < 55; i++)
    observer.audit({ type: 'token.issued', result: 'success', subject: 'sub-pat', clientId: 'app-1', scopes: ['mcp'], details: { grant_type: 'refresh_token', n: i } })
  await observer.trail!.flushed()
  to = new Date().toISOString()
  await new Promise((resolve) => setTimeout(resolve, 5))
})
afterAll(() => stack.stop())

const htmlText = (html: string): string => html.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replaceAll('&amp;', '&')
const rowsOf = (html: string): string[] => [...html.matchAll(/<tr><td>.*?<\/tr>/g)].map((match) => match[0])

describe('the console at /admin/audit', () => {
  it('lists the newest events in the console, linked from the navigation, escaped', async () => {
    const visitor = new ConsoleVisitor(stack.origin, root)
    const page = await visitor.open(recorded())
    expect(page.status).toBe(200)
    expect(page.html).toContain('<h1>Audit trail</h1>')
    expect(page.html).toContain('href="/admin/audit" aria-current="page">Audit trail</a>')
    const rows = rowsOf(page.html)
    expect(rows).toHaveLength(50)
    expect(rows[0]).toContain('n&#61;54')
    expect(page.html).not.toContain('<script>alert(1)')
    expect(page.html).toContain('id="older-events"')
  })

  it('pages to older events with the filters kept', async () => {
    const visitor = new ConsoleVisitor(stack.origin, root)
    const first = await visitor.open(recorded())
    const href = htmlText(/<a href="([^"]+)" id="older-events">/.exec(first.html)![1]!)
    const second = await visitor.open(href)
    const rows = rowsOf(second.html)
    expect(rows).toHaveLength(7)
    expect(rows.at(-1)).toContain('sign-in.failed')
    expect(new URL(href, stack.origin).searchParams.get('since')).toBe(from)
    expect(second.html).not.toContain('id="older-events"')
  })

  it('filters by user, client, type prefix and time', async () => {
    const visitor = new ConsoleVisitor(stack.origin, root)
    const byUser = rowsOf((await visitor.open(recorded('user=pat'))).html)
    expect(byUser).toHaveLength(1)
    expect(byUser[0]).toContain('wrong password; factor&#61;password')
    expect(byUser[0]).toContain('203.0.113.7')
    const byActor = rowsOf((await visitor.open(recorded('user=root'))).html)
    expect(byActor).toHaveLength(1)
    expect(byActor[0]).not.toContain('<script>')
    expect(htmlText(byActor[0]!)).toContain('<code><script>alert(1)</script></code>')
    expect(rowsOf((await visitor.open(recorded('type=sign-in.'))).html)).toHaveLength(1)
    expect(rowsOf((await visitor.open(recorded('client_id=app-1&type=token.issued'))).html)).toHaveLength(50)
    const none = await visitor.open('/admin/audit?since=1w&until=2d')
    expect(none.status).toBe(200)
    expect(none.html).toContain('No event matches.')
  })

  it('says what is wrong with a filter it cannot read', async () => {
    const visitor = new ConsoleVisitor(stack.origin, root)
    const page = await visitor.open('/admin/audit?since=yesterday')
    expect(page.status).toBe(400)
    expect(page.html).toContain('Since takes 30m, 1h, 2d, 1w or an ISO date-time')
    const forged = await visitor.open('/admin/audit?cursor=..%2Fetc')
    expect(forged.status).toBe(400)
    expect(forged.html).toContain('not one this console made')
  })

  it('is closed to a person who is not an administrator', async () => {
    const page = await new ConsoleVisitor(stack.origin, pat).open('/admin/audit')
    expect(page.status).toBe(403)
    expect(page.html).not.toContain('sign-in.failed')
  })
})
