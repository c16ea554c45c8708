/**
 * SQLite rare lists (src/store/sqlite/rare-lists.ts) never change an answer: the same
 * workspace searched by several rare words through a service whose index has lists for its
 * rare terms and through one without any gives the same results, scores and order, as listed
 * chunks are rewritten and deleted and new ones come, before and after the lists catch up.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { rareListed, rareListStatus } from '../../src/store/sqlite/impact-status.js'
import { queryTerms } from '../../src/text/analyzer.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

// walrus, in a third of the chunks, gets no list: queries holding it are FTS5's.
const LISTS = { maxDocFreq: 50, minRows: 100 }
const NONE = { ...LISTS, minRows: Number.MAX_SAFE_INTEGER }
const WORDS = ['walrus', 'narwhal', 'puffin', 'ptarmigan', 'lemming', 'muskox', 'caribou', 'beluga']

/**
 * File `n`'s three sections: each holds some of the words (1–3 times, in its heading for
 * some) among others; sections 26 apart are equal, so some scores are equal.
 */
function note(n: number, words = WORDS): string {
  const section = (k: number) => {
    const m = k % 26
    const held = words.filter((_, w) => (m + w) % (3 + w) === 0)
    const body = held.map((w, i) => `${w} `.repeat(1 + ((m + i) % 3))).join('')
    return `## ${held[0] ?? 'seal'} ${m}\n\n${body}${'ice floe '.repeat(40 + ((m * 11) % 7) * 10)}\n`
  }
  return [0, 1, 2].map((i) => section(3 * n + i)).join('\n')
}

/** Whether the rare lists of the index in `ws` cover every chunk (null: not yet). */
function listsCurrent(ws: TempWorkspace): true | undefined {
  const { built, behind } = rareListStatus(path.join(ws.dataDir, 'index.sqlite'))
  return built && behind !== null && behind <= 0 ? true : undefined
}

describe('keyword search with rare lists', () => {
  it('answers as the full FTS5 ranking does, through rewrites, deletions and new chunks', async () => {
    const apps: TestApp[] = []
    for (const rareLists of [LISTS, NONE]) {
      const ws = createTempWorkspace()
      for (let i = 0; i < 60; i++) ws.write(`memory/${i % 2 ? 'a' : 'b'}${i}.md`, note(i))
      apps.push(await useTestApp({ ws, overrides: { rareLists } }))
    }
    const [listed, plain] = apps as [TestApp, TestApp]
    await waitFor(() => listsCurrent(listed.ws))
    const terms = WORDS.map((w) => queryTerms(w)[0] as string)
    expect(rareListed(path.join(listed.ws.dataDir, 'index.sqlite'), terms)).toEqual(terms.slice(1))

    const queries = [
      'walrus narwhal',
      'puffin ptarmigan lemming',
      'muskox caribou beluga walrus',
      'beluga',
      'lemming ice',
    ]
    const expectSame = async () => {
      for (const query of queries) {
        for (const maxResults of [1, 3, 10]) {
          for (const pathPrefix of [undefined, 'memory/b']) {
            const body = { query, mode: 'keyword', maxResults, minScore: 0, ...(pathPrefix && { pathPrefix }) }
            const [a, b] = await Promise.all([listed.search(body), plain.search(body)])
            expect(a.statusCode).toBe(200)
            expect(a.body.results.length).toBeGreaterThan(0)
            expect(a.body.results).toEqual(b.body.results)
          }
        }
      }
    }
    await expectSame()

    // The best chunks of a query lose its words or go; better new ones come (past the lists).
    const best = (await plain.search({ query: queries[1], mode: 'keyword', maxResults: 3, minScore: 0 })).body.results
    for (const t of apps) {
      t.ws.write(best[0]?.path as string, note(7, ['otter']))
      if (best[1] && best[1].path !== best[0]?.path) t.ws.remove(best[1].path)
      for (let i = 0; i < 3; i++)
        t.ws.write(`memory/b-new${i}.md`, `## puffin\n\n${'puffin ptarmigan '.repeat(4)}ice\n`)
      await t.sync()
    }
    await expectSame()
    await waitFor(() => listsCurrent(listed.ws))
    await expectSame()
  })
})
