/**
 * The web console at /ui in a real browser (Debian's Chromium, driven by playwright-core),
 * against a running mnemo with two agents: sign-in, the overview, a search with its reasons,
 * a result opened at its lines, an edit caught by a concurrent change, a live event, memory
 * holding markup shown as text, the search log, an agent token kept to its agent, axe-core's
 * accessibility rules, and a phone-sized window. Each view's screenshot is written to
 * docs/images/ for the manual (docs/manual.md), so the pictures there are of today's console.
 * `npm run test:browser`; needs /usr/bin/chromium (CI installs it).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const ADMIN = 'console-admin-token-0123456789'
const OPS = 'console-ops-token-0123456789'
const IMAGES = path.resolve(import.meta.dirname, '../../docs/images')
const HOSTILE = '<img src=x onerror=alert(1)> and <script>window.pwned = 1</script>'

const OPS_MEMORY = [
  '# Ops',
  '',
  '<!-- observed: 2026-11-01 | status: active | key: deploy-day | origin: owner -->',
  '- Deploys happen on Tuesday after the standup.',
  '',
  '- 生产环境的部署窗口是周二下午。',
  '',
  `- Pasted from a ticket: ${HOSTILE}`,
  '',
].join('\n')

describe('the console at /ui', () => {
  let service: ServiceProcess
  let browser: Browser
  let url: string
  const dialogs: string[] = []

  /** A call to the API as the admin, acting for `agent`. */
  const api = (method: string, route: string, agent: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN}`,
        'x-mnemo-agent': agent,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })

  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await browser.newPage({ viewport })
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    return page
  }

  async function signIn(page: Page, token: string, hash = ''): Promise<void> {
    await page.goto(`${url}/ui${hash}`)
    await page.getByLabel('Token').fill(token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('navigation', { name: 'Views' }).waitFor()
  }

  /** axe-core's serious and critical violations on the page as it is now. */
  async function accessibilityProblems(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol, which the page's CSP does not govern.
    const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
    await page.evaluate(source)
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
      ).axe
      return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }))
    })
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(IMAGES, `console-${name}.png`) })

  beforeAll(async () => {
    fs.mkdirSync(IMAGES, { recursive: true })
    const ws = createTempWorkspace()
    ws.write('MEMORY.md', '# Main\n\n- The main agent keeps the release checklist.\n')
    const agents = path.join(ws.base, 'agents')
    fs.mkdirSync(path.join(agents, 'ops', 'memory'), { recursive: true })
    fs.writeFileSync(path.join(agents, 'ops', 'MEMORY.md'), OPS_MEMORY)
    fs.writeFileSync(
      path.join(agents, 'ops', 'memory', '2026-11-20.md'),
      '# 2026-11-20\n\n- Rotated the staging keys.\n',
    )
    service = startService(
      {
        MNEMO_WORKSPACE: ws.root,
        MNEMO_DATA_DIR: ws.dataDir,
        MNEMO_AGENTS_DIR: agents,
        MNEMO_API_TOKEN: ADMIN,
        MNEMO_AGENT_TOKENS: `ops:${OPS}`,
      },
      ws.base,
    )
    url = await service.ready()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    service?.kill('SIGKILL')
  })

  it('refuses a wrong token, then signs in and lists both agents in the overview', async () => {
    const page = await newPage()
    await page.goto(`${url}/ui`)
    await page.getByLabel('Token').fill('not-the-token-0123456789')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted')
    await page.getByLabel('Token').fill(ADMIN)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const table = page.getByRole('table', { name: 'Agents and their memory' })
    await table.waitFor()
    await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['main', 'ops'])
    await page.getByRole('heading', { name: 'Index of main' }).waitFor()
    expect(await page.getByText('sqlite · healthy').count()).toBe(1)
    // The token is in this tab's sessionStorage, nowhere in the address.
    expect(await page.evaluate(() => sessionStorage.getItem('mnemo.token'))).toBe(ADMIN)
    expect(page.url()).not.toContain(ADMIN)
    await shoot(page, 'overview')
    expect(await accessibilityProblems(page)).toEqual([])
    await page.close()
  })

  it('finds a note with its reasons, marks the terms, and opens the file at the result’s lines', async () => {
    const page = await newPage()
    await signIn(page, ADMIN, '#/search?agent=ops')
    await page.getByRole('searchbox', { name: 'Search' }).fill('部署 周二')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const hit = page.locator('.hit').first()
    await hit.waitFor()
    const link = hit.getByRole('link')
    expect(await link.textContent()).toMatch(/^MEMORY\.md#L\d+-L\d+$/)
    const reasons = hit.getByRole('definition')
    expect(await reasons.count()).toBe(5)
    expect(await hit.locator('dt').allTextContents()).toEqual(['Keyword', 'Vector', 'Rerank', 'Recency', 'Final'])
    expect(Number(await reasons.first().textContent())).toBeGreaterThan(0)
    expect(await hit.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['部署', '周二']))
    await shoot(page, 'search')
    expect(await accessibilityProblems(page)).toEqual([])

    const [, from, to] = /#L(\d+)-L(\d+)$/.exec((await link.textContent()) ?? '') ?? []
    await link.click()
    await page.getByRole('heading', { name: 'MEMORY.md' }).waitFor()
    const marked = page.locator('.lines li.hit')
    await marked.first().waitFor()
    expect(await marked.first().getAttribute('id')).toBe(`L${from}`)
    expect(await marked.last().getAttribute('id')).toBe(`L${to}`)
    expect(await page.locator('.lines .badge').allTextContents()).toEqual(
      expect.arrayContaining(['active', 'origin: owner', 'observed: 2026-11-01', 'key: deploy-day']),
    )
    await shoot(page, 'files')
    expect(await accessibilityProblems(page)).toEqual([])
    await page.close()
  })

  it('says why a search returned nothing: the best score under minScore', async () => {
    const page = await newPage()
    await signIn(page, ADMIN, '#/search?agent=ops')
    await page.getByRole('searchbox', { name: 'Search' }).fill('deploys tuesday kubernetes helm chart rollout')
    await page.getByText('Options').click()
    await page.getByLabel('Min score').fill('0.99')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const why = page.locator('.why')
    await why.waitFor()
    expect(await why.textContent()).toMatch(/best match scored 0\.\d{3}, below minScore 0\.990/)
    await page.close()
  })

  it('saves an edit with If-Match, and catches a change made underneath without saving over it', async () => {
    const page = await newPage()
    await signIn(page, ADMIN, '#/files?agent=ops&path=memory%2F2026-11-20.md')
    await page.getByRole('button', { name: 'Edit' }).click()
    const editor = page.getByLabel('File content')
    await editor.fill('# 2026-11-20\n\n- Rotated the staging keys (console edit).\n')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText(/^Saved:/).waitFor()
    const read = async () =>
      ((await (await api('GET', '/files/memory%2F2026-11-20.md', 'ops')).json()) as { text: string }).text
    expect(await read()).toBe('# 2026-11-20\n\n- Rotated the staging keys (console edit).')

    await page.getByRole('button', { name: 'Edit' }).click()
    const theirs = '# 2026-11-20\n\n- Changed by an agent meanwhile.\n'
    expect((await api('PUT', '/files/memory%2F2026-11-20.md', 'ops', { content: theirs })).status).toBe(200)
    await editor.fill('# 2026-11-20\n\n- My version.\n')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    const conflict = page.locator('.conflict')
    await conflict.waitFor()
    expect(await conflict.getByRole('region', { name: 'On disk now' }).textContent()).toContain(
      'Changed by an agent meanwhile.',
    )
    expect(await read()).toContain('Changed by an agent meanwhile.')
    await shoot(page, 'conflict')
    await page.getByRole('button', { name: 'Save mine over it' }).click()
    await page.getByText(/^Saved:/).waitFor()
    expect(await read()).toBe('# 2026-11-20\n\n- My version.')
    await page.close()
  })

  it('shows a change event within 2 s of an API write', async () => {
    const page = await newPage()
    await signIn(page, ADMIN, '#/live?agent=ops')
    await page.getByText('ops: listening').waitFor()
    const written = await api('POST', '/files/memory%2F2026-11-28.md', 'ops', { content: '- Live note.\n' })
    expect(written.status).toBe(200)
    await page
      .locator('.events li', { hasText: 'file.written' })
      .filter({ hasText: 'memory/2026-11-28.md' })
      .waitFor({ timeout: 2000 })
    await shoot(page, 'live')
    expect(await accessibilityProblems(page)).toEqual([])
    await page.close()
  })

  it('shows markup in memory as text and runs none of it', async () => {
    const page = await newPage()
    await signIn(page, ADMIN, '#/files?agent=ops&path=MEMORY.md')
    await page.getByText(HOSTILE, { exact: false }).first().waitFor()
    expect(await page.locator('.lines img, .lines script').count()).toBe(0)
    await page.goto(`${url}/ui#/search?agent=ops`)
    await page.getByRole('searchbox', { name: 'Search' }).fill('pasted ticket onerror')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.locator('.snippet', { hasText: '<script>' }).first().waitFor()
    expect(await page.locator('.snippet img, .snippet script').count()).toBe(0)
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    await page.close()
  })

  it('shows what agents searched for: the searches that found nothing, latency, and feedback', async () => {
    const miss = await fetch(`${url}/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'zebra quokka' }),
    })
    const { requestId } = (await miss.json()) as { requestId: string }
    expect((await api('POST', '/feedback', 'ops', { requestId, useful: false, note: 'no zebras here' })).status).toBe(
      200,
    )
    const page = await newPage()
    await signIn(page, ADMIN, '#/searches')
    const nothing = page.getByRole('region', { name: /Found nothing/ })
    await nothing.getByText('zebra quokka').waitFor()
    await page.getByRole('cell', { name: 'not useful — no zebras here' }).waitFor()
    expect(await page.getByRole('img', { name: 'Search latency over time' }).count()).toBe(1)
    await shoot(page, 'searches')
    expect(await accessibilityProblems(page)).toEqual([])
    await page.close()
  })

  it('keeps an agent token to its own agent', async () => {
    const page = await newPage()
    await signIn(page, OPS, '#/files')
    await page.getByRole('navigation', { name: 'Files' }).getByRole('link', { name: 'MEMORY.md' }).click()
    await page.getByText('Deploys happen on Tuesday').waitFor()
    expect(await page.getByLabel('Agent').count()).toBe(0)
    expect(await page.getByText('release checklist').count()).toBe(0)
    // Asking for another agent's memory by address is refused by the API, and shown so.
    await page.goto(`${url}/ui#/files?agent=main&path=MEMORY.md`)
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('AGENT_FORBIDDEN')
    expect(await page.getByText('release checklist').count()).toBe(0)
    await page.goto(`${url}/ui#/overview`)
    await page.getByRole('table', { name: 'Agents and their memory' }).waitFor()
    expect(await page.getByRole('rowheader').allTextContents()).toEqual(["this token's agent"])
    await page.close()
  })

  it('fits a phone-sized window without scrolling sideways', async () => {
    const page = await newPage({ width: 390, height: 844 })
    await signIn(page, ADMIN, '#/search?agent=ops')
    await page.getByRole('searchbox', { name: 'Search' }).fill('deploy')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.locator('.hit').first().waitFor()
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
    await shoot(page, 'phone')
    await page.close()
  })
})
