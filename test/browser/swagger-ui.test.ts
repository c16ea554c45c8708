/**
 * Swagger UI in a real browser (Debian's Chromium, driven by playwright-core): open /docs
 * of a running mnemo with a token, authorise, run "Try it out" on /search with the
 * prefilled example, and see a 200 with results from the example workspace.
 * `npm run test:browser`; needs /usr/bin/chromium (CI installs it).
 */
import fs from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/chromium.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const TOKEN = 'browser-token-0123456789'

describe('Swagger UI at /docs', () => {
  let service: ServiceProcess
  let browser: Browser
  let url: string
  beforeAll(async () => {
    const ws = createTempWorkspace()
    fs.rmSync(ws.root, { recursive: true })
    service = startService(
      { MNEMO_WORKSPACE: ws.root, MNEMO_DATA_DIR: ws.dataDir, MNEMO_API_TOKEN: TOKEN, MNEMO_DOCS_PUBLIC: 'true' },
      ws.base,
    )
    url = await service.ready()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    service?.kill('SIGKILL')
  })

  it('authorises with a token and runs the prefilled /search example: 200 with results', async () => {
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.locator('.swagger-ui .opblock').first().waitFor()
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    expect(paths).toContain('/files/{path}')

    await page.click('button.authorize')
    await page.fill('.modal-ux input', TOKEN)
    await page.click('.modal-ux button.authorize')
    await page.click('.modal-ux button.close-modal')

    const search = page.locator('#operations-search-searchMemory')
    await search.locator('.opblock-summary').click()
    await search.locator('button.try-out__btn').click()
    const body = JSON.parse(await search.locator('textarea.body-param__text').inputValue()) as { query: string }
    expect(body).toEqual({ query: 'qwen-max 模型升级' })
    await search.locator('button.execute').click()

    const status = search.locator('.live-responses-table tbody .response-col_status').first()
    await status.waitFor()
    expect((await status.textContent())?.trim()).toBe('200')
    const answer = JSON.parse(
      (await search.locator('.live-responses-table tbody .response-col_description pre').first().textContent()) ?? '',
    ) as { results: { path: string }[] }
    expect(answer.results[0]?.path).toBe('MEMORY.md')
  })
})
