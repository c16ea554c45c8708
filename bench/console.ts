/**
 * How soon the console's first view is usable (issue 33: interactive within 1 s): the built
 * service on the synthetic workspace, Chromium (Debian's, headless) loading /ui in a fresh
 * browser context each time, so nothing is cached. Two moments, from navigation start:
 * the sign-in form accepting input (no token yet), and the overview showing its agents
 * table, signed in (the token put in sessionStorage before the page loads).
 */
import path from 'node:path'
import { chromium } from 'playwright-core'
import { writeCorpus } from './corpus.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

const CHROMIUM = '/usr/bin/chromium'
const TOKEN = 'bench-console-token-0123456789'

export type ConsoleBenchOptions = { tmp: string; runs: number; files: number; notesPerFile: number }

export async function benchConsole(opts: ConsoleBenchOptions) {
  const workspace = path.join(opts.tmp, 'workspace')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const server = await startServer({
    MNEMO_WORKSPACE: workspace,
    MNEMO_DATA_DIR: path.join(opts.tmp, 'data'),
    MNEMO_API_TOKEN: TOKEN,
    MNEMO_INDEX_ON_START: 'true',
  })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  const signInMs: number[] = []
  const overviewMs: number[] = []
  try {
    // Ten loads a run: one page load is a few tens of ms, and the first of a browser is slower.
    for (let i = 0; i < opts.runs * 10; i++) {
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await fresh.newPage()
      let started = performance.now()
      await page.goto(`${server.baseUrl}/ui`)
      await page.getByLabel('Token').waitFor()
      signInMs.push(performance.now() - started)
      await fresh.close()

      const signedIn = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      await signedIn.addInitScript((token) => sessionStorage.setItem('mnemo.token', token), TOKEN)
      const page2 = await signedIn.newPage()
      started = performance.now()
      await page2.goto(`${server.baseUrl}/ui#/overview`)
      await page2.getByRole('table', { name: 'Agents and their memory' }).getByRole('rowheader').first().waitFor()
      overviewMs.push(performance.now() - started)
      await signedIn.close()
    }
  } finally {
    await browser.close()
    await server.stop()
  }
  return {
    signIn: { p50Ms: median(signInMs), p95Ms: percentile(signInMs, 95) },
    overview: { p50Ms: median(overviewMs), p95Ms: percentile(overviewMs, 95) },
  }
}
