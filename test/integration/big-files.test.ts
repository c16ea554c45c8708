/**
 * A file far bigger than one short transaction (issue 16, item 1) is written into the index
 * in stages: searches running meanwhile — on the search workers, through the API — find
 * the file's old version or its new one, never a mix, and never half a deletion; a big
 * file dropped on disk goes the same way through the watcher.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'

let t: TestApp
afterEach(async () => {
  await t.close()
})

/** Small chunks, so a file of a few thousand lines has hundreds of them. */
const SMALL_CHUNKS = { MNEMO_CHUNK_TOKENS: '32', MNEMO_CHUNK_OVERLAP_TOKENS: '0' }

/** A day file whose every line holds `shared` and the version's word. */
const fileOf = (word: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `- shared ${word} note number ${i} of the big file`).join('\n') + '\n'

/** Which versions the snippets of one search for every version's word show. */
async function versionsSeen(): Promise<string[]> {
  const res = await t.search({ query: 'alpha beta gamma', maxResults: 100, minScore: 0, mode: 'keyword' })
  expect(res.statusCode).toBe(200)
  const words = new Set(res.body.results.map((r) => /shared (\w+)/.exec(r.snippet)?.[1] ?? '?'))
  return [...words].sort()
}

/**
 * Each answer shows one version, and once the new one (`to`) appeared, never the old one
 * (`from`) again: readers see the file switch once.
 */
function expectOneSwitch(seen: string[][], from: string[], to: string[]): void {
  const first = seen.findIndex((v) => JSON.stringify(v) === JSON.stringify(to))
  expect(first).toBeGreaterThanOrEqual(0)
  expect(seen.slice(0, first)).toEqual(seen.slice(0, first).map(() => from))
  expect(seen.slice(first)).toEqual(seen.slice(first).map(() => to))
}

/** Searches one after another until `done` settles; returns what each answer showed. */
async function searchUntil(done: Promise<unknown>): Promise<string[][]> {
  let finished = false
  void done.finally(() => (finished = true))
  const seen: string[][] = []
  while (!finished) seen.push(await versionsSeen())
  seen.push(await versionsSeen())
  return seen
}

describe('a file bigger than one transaction', () => {
  it('is replaced while searches run, and every answer shows one version of it', async () => {
    t = await buildTestApp({ env: SMALL_CHUNKS })
    const put = (word: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/files/memory/big.md',
        headers: { 'content-type': 'text/markdown' },
        payload: fileOf(word, 3000),
      })
    expect((await put('alpha')).statusCode).toBe(201)
    const files = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: { chunks: number }[] }>()
    // About 9 terms a line: 27,000 terms, several times what one transaction writes.
    expect(files.files[0]?.chunks).toBeGreaterThan(300)

    const writing = put('beta')
    const seen = await searchUntil(writing)
    expect((await writing).statusCode).toBe(200)
    expectOneSwitch(seen, ['alpha'], ['beta'])
  })

  it('is deleted while searches run: all of it until the deletion, then none', async () => {
    t = await buildTestApp({ env: SMALL_CHUNKS })
    t.ws.write('memory/big.md', fileOf('alpha', 3000))
    t.ws.write('memory/other.md', '- shared gamma note that stays\n')
    await t.sync()
    const before = (await t.search({ query: 'alpha', maxResults: 100, minScore: 0, mode: 'keyword' })).body.results
    expect(before.length).toBe(100)

    const deleting = t.app.inject({ method: 'DELETE', url: '/files/memory/big.md' })
    const seen = await searchUntil(deleting)
    expect((await deleting).statusCode).toBe(200)
    expectOneSwitch(seen, ['alpha', 'gamma'], ['gamma'])
    const listed = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: { path: string }[] }>()
    expect(listed.files.map((f) => f.path)).toEqual(['memory/other.md'])
  })

  it('dropped on disk is indexed by the watcher the same way', async () => {
    t = await buildTestApp({ env: { ...SMALL_CHUNKS, MNEMO_WATCH: 'true', MNEMO_SYNC_DEBOUNCE_MS: '50' }, start: true })
    t.ws.write('memory/big.md', fileOf('alpha', 3000))
    await waitFor(async () => ((await versionsSeen()).includes('alpha') ? true : undefined), 20_000)
    t.ws.write('memory/big.md', fileOf('beta', 2500))
    const indexed = waitFor(async () => {
      const res = await t.app.inject({ method: 'GET', url: '/files' })
      const file = res.json<{ files: { lines: number }[] }>().files[0]
      return file?.lines === 2500 ? true : undefined
    }, 20_000)
    expectOneSwitch(await searchUntil(indexed), ['alpha'], ['beta'])
  })
})
