/**
 * The snippet budget of a search answer (issue 16): past MNEMO_SNIPPET_BYTES_PER_SEARCH
 * snippets are shortened or left empty in rank order, no result is dropped, and the answer
 * says how many snippets were shortened.
 */
import { describe, expect, it } from 'vitest'
import { useTestApp, type SearchBody } from '../helpers/build-test-app.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

/** Ten notes, each one chunk of about 1,000 characters about the billing budget. */
function workspace() {
  const ws = createTempWorkspace()
  for (let i = 0; i < 10; i++) {
    const lines = Array.from(
      { length: 14 },
      (_, n) => `- note ${i}.${n}: the billing budget for quarter ${n} was reviewed.`,
    )
    ws.write(`memory/notes-${i}.md`, `${lines.join('\n')}\n`)
  }
  return ws
}

async function searchWith(env: Record<string, string>): Promise<SearchBody> {
  const t = await useTestApp({ ws: workspace(), env })
  const res = await t.search({ query: 'billing budget', maxResults: 10, minScore: 0 })
  expect(res.statusCode).toBe(200)
  return res.body
}

describe('snippet budget per search', () => {
  it('shortens snippets past the budget in rank order, keeps every result, and says how many', async () => {
    const whole = await searchWith({})
    expect(whole.results).toHaveLength(10)
    expect(whole.snippetsShortened).toBeUndefined()
    const wholeBytes = whole.results.map((r) => Buffer.byteLength(r.snippet))
    // Each chunk is longer than a snippet (700 characters), so each snippet is a window of its lines.
    expect(wholeBytes.every((b) => b > 600 && b <= 700)).toBe(true)

    const budget = await searchWith({ MNEMO_SNIPPET_BYTES_PER_SEARCH: '1024' })
    expect(budget.results.map((r) => [r.path, r.startLine, r.score])).toEqual(
      whole.results.map((r) => [r.path, r.startLine, r.score]),
    )
    const bytes = budget.results.map((r) => Buffer.byteLength(r.snippet))
    expect(bytes).toEqual([wholeBytes[0], 1024 - (wholeBytes[0] as number), 0, 0, 0, 0, 0, 0, 0, 0])
    expect(budget.results[0]?.snippet).toBe(whole.results[0]?.snippet)
    expect(whole.results[1]?.snippet.startsWith(budget.results[1]?.snippet ?? '-')).toBe(true)
    expect(budget.snippetsShortened).toBe(9)
  })
})
