/**
 * Issue 28 item 13: `GET /` on `mcp-auth start` (a real process) is a small page in the pages'
 * layout: what the server is, the MCP endpoints and metadata documents with their full URLs (each
 * reachable), how clients log in, where the docs are; HEAD too, the same links as JSON for a
 * client that asks for JSON, and a page that fits a 390 px phone and a 1280 px desktop in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../helpers/chromium.js'
import { startMainJob } from '../helpers/cli-process.js'

let job: Awaited<ReturnType<typeof startMainJob>>
let browser: Browser

beforeAll(async () => {
  ;[job, browser] = await Promise.all([startMainJob('home page password 1', 'mcp-auth-home-'), launchChromium()])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await job?.stop()
})

const urls = (origin: string) => ({
  endpoints: [`${origin}/mcp`, `${origin}/sse`, `${origin}/rest`],
  metadata: [
    `${origin}/.well-known/oauth-authorization-server`,
    `${origin}/.well-known/openid-configuration`,
    `${origin}/.well-known/oauth-protected-resource/mcp`,
    `${origin}/jwks`,
  ],
})

interface Layout {
  scrollWidth: number
  clientWidth: number
  main: { left: number; right: number }
  widestCodeRight: number
  links: string[]
  heading: string | undefined
  command: string | undefined
  originLines: number[]
}

/**
 * Run in the page (a string: the tests type-check without the DOM library). `originLines`: on how
 * many lines the origin of each URL shown (the text before its first <wbr>) lies; a URL wraps at
 * a `/`, never mid-host.
 */
const MEASURE = `(() => {
  const root = document.documentElement
  const main = document.querySelector('main').getBoundingClientRect()
  const codes = [...document.querySelectorAll('code')].map((code) => code.getBoundingClientRect())
  return {
    scrollWidth: root.scrollWidth,
    clientWidth: root.clientWidth,
    main: { left: main.left, right: main.right },
    widestCodeRight: Math.max(...codes.map((box) => box.right)),
    links: [...document.querySelectorAll('#endpoints a, #metadata a')].map((a) => a.href),
    heading: document.querySelector('h1')?.textContent,
    command: document.querySelector('#login-command')?.textContent,
    originLines: [...document.querySelectorAll('#endpoints code, #metadata code, #login-command')].map((code) => {
      const text = [...code.childNodes].find((node) => node.nodeType === Node.TEXT_NODE && /https?:\\/\\//.test(node.textContent ?? ''))
      const range = document.createRange()
      range.setStart(text, text.textContent.search(/https?:\\/\\//))
      range.setEnd(text, text.textContent.length)
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
    }),
  }
})()`

describe('GET / on mcp-auth start', () => {
  it('is an HTML page in the pages’ layout naming every MCP endpoint, metadata document and the login', async () => {
    const response = await fetch(`${job.origin}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await response.text()
    expect(html).toMatch(/<title>Home · mcp-auth<\/title>/)
    expect(html).toContain('--accent') // the layout's stylesheet
    const { endpoints, metadata } = urls(job.origin)
    for (const url of [...endpoints, ...metadata]) expect(html).toContain(`href="${url.replaceAll('=', '&#61;')}"`)
    expect(html.replaceAll('<wbr>', '')).toContain(`npx mcp-auth login ${job.origin}/mcp`)
    expect(html).toMatch(/README\.md.*docs\//)
  })

  it('links only to documents that are there and to endpoints that ask for a token', async () => {
    const { endpoints, metadata } = urls(job.origin)
    for (const url of metadata) expect([url, (await fetch(url)).status]).toEqual([url, 200])
    const mcp = await fetch(endpoints[0]!, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
    expect(mcp.status).toBe(401)
    const sse = await fetch(endpoints[1]!, { headers: { accept: 'text/event-stream' } })
    expect(sse.status).toBe(401)
    await sse.body?.cancel()
    const rest = await fetch(endpoints[2]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(rest.status).toBe(401)
  })

  it('answers HEAD with the headers of GET and no body, and other methods with 405', async () => {
    const get = await fetch(`${job.origin}/`)
    const head = await fetch(`${job.origin}/`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(await get.text())))
    expect(await head.text()).toBe('')
    const post = await fetch(`${job.origin}/`, { method: 'POST', body: 'x' })
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD'])
  })

  it('gives a client that asks for JSON the same links as JSON', async () => {
    const response = await fetch(`${job.origin}/`, { headers: { accept: 'application/json' } })
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('vary')).toBe('Accept')
    const { endpoints, metadata } = urls(job.origin)
    expect(await response.json()).toEqual({
      name: 'mcp-auth',
      endpoints: { streamableHttp: endpoints[0], sse: endpoints[1], statelessJson: endpoints[2] },
      metadata: { authorizationServer: metadata[0], openidConfiguration: metadata[1], protectedResource: metadata[2], jwks: metadata[3] },
      login: `npx mcp-auth login ${endpoints[0]}`,
    })
    // a browser's Accept (HTML first) still gets the page
    const browserLike = await fetch(`${job.origin}/`, { headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8' } })
    expect(browserLike.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  it.each([390, 1280])('fits a %i px wide screen in Chromium: nothing wider than the page, every URL shown whole', async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    try {
      await page.goto(`${job.origin}/`)
      const layout = await page.evaluate<Layout>(MEASURE)
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth)
      expect(layout.main.left).toBeGreaterThanOrEqual(0)
      expect(layout.main.right).toBeLessThanOrEqual(width)
      expect(layout.widestCodeRight).toBeLessThanOrEqual(layout.main.right)
      const { endpoints, metadata } = urls(job.origin)
      expect(layout.links).toEqual([...endpoints, ...metadata])
      expect(layout.heading).toBe('mcp-auth')
      expect(layout.command).toBe(`npx mcp-auth login ${job.origin}/mcp`)
      expect(layout.originLines).toEqual(Array(8).fill(1))
      await page.screenshot({ path: `/tmp/mcp-auth-home-${width}.png`, fullPage: true })
    } finally {
      await page.close()
    }
  })
})
