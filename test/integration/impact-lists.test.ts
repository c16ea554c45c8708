/**
 * SQLite impact lists (src/store/sqlite/impact-lists.ts) never change an answer: the same
 * workspace searched through a service whose index has lists for its common terms and
 * through one without any gives the same results, scores and order, as the listed chunks are
 * rewritten and deleted and new ones come, before and after the lists catch up.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { impactListStatus } from '../../src/store/sqlite/impact-status.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

const LISTS = { minDocFreq: 60, keep: 40, minRows: 200 }
const NONE = { ...LISTS, minRows: Number.MAX_SAFE_INTEGER }

/**
 * File `n`'s three sections: one in three holds walrus (1–5 times, in its heading for some)
 * among other words; sections 26 apart are equal, so some scores are equal.
 */
function note(n: number, word = 'walrus'): string {
  const section = (k: number) => {
    const m = k % 26
    const times = m % 3 === 0 ? 1 + ((m * 7) % 5) : 0
    return `## ${m % 9 === 0 ? word : 'seal'} ${m}\n\n${`${word} `.repeat(times)}${'ice floe '.repeat(60 + ((m * 11) % 7) * 15)}\n`
  }
  return [0, 1, 2].map((i) => section(3 * n + i)).join('\n')
}

/** Whether the lists of the index in `ws` cover every chunk (null: not yet). */
function listsCurrent(ws: TempWorkspace): true | undefined {
  const { behind } = impactListStatus(path.join(ws.dataDir, 'index.sqlite'))
  return behind !== null && behind <= 0 ? true : undefined
}

describe('keyword search with impact lists', () => {
  it('answers as the full FTS5 ranking does, through rewrites, deletions and new chunks', async () => {
    const apps: TestApp[] = []
    for (const impactLists of [LISTS, NONE]) {
      const ws = createTempWorkspace()
      for (let i = 0; i < 120; i++) ws.write(`memory/${i % 2 ? 'a' : 'b'}${i}.md`, note(i))
      apps.push(await useTestApp({ ws, overrides: { impactLists } }))
    }
    const [listed, plain] = apps as [TestApp, TestApp]
    await waitFor(() => listsCurrent(listed.ws))

    const expectSame = async () => {
      for (const maxResults of [1, 3, 6, 10]) {
        for (const pathPrefix of [undefined, 'memory/b']) {
          const body = { query: 'walrus', mode: 'keyword', maxResults, minScore: 0, ...(pathPrefix && { pathPrefix }) }
          const [a, b] = await Promise.all([listed.search(body), plain.search(body)])
          expect(a.statusCode).toBe(200)
          expect(a.body.results.length).toBeGreaterThan(0)
          expect(a.body.results).toEqual(b.body.results)
        }
      }
    }
    await expectSame()

    // The best walrus chunks lose the word or go; better new ones come (past the lists).
    const best = (await plain.search({ query: 'walrus', mode: 'keyword', maxResults: 3, minScore: 0 })).body.results
    for (const t of apps) {
      t.ws.write(best[0]?.path as string, note(7, 'otter'))
      if (best[1] && best[1].path !== best[0]?.path) t.ws.remove(best[1].path)
      for (let i = 0; i < 3; i++) t.ws.write(`memory/b-new${i}.md`, `## walrus\n\n${'walrus '.repeat(6)}ice\n`)
      await t.sync()
    }
    await expectSame()
    await waitFor(() => listsCurrent(listed.ws))
    await expectSame()
  })
})
