/**
 * /mcp under load (issue 16): a batch over MNEMO_MCP_MAX_BATCH is refused with a JSON-RPC
 * error, the tool calls of one request run one after another, never at once, and the
 * searches of one request share one request's results and snippet bytes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createGatedEmbedder } from '../helpers/gated-embedder.js'

let t: TestApp
afterEach(async () => {
  await t.close()
})

async function listening(env: Record<string, string>, embedder = createGatedEmbedder()) {
  t = await buildTestApp({ corpus: true, env, overrides: { embedder: embedder.provider } })
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = t.app.server.address() as { port: number }
  const post = (body: unknown) =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    })
  return { post, embedder }
}

const searchCall = (id: number, query: string, more: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'memory_search', arguments: { query, ...more } },
})

type SearchAnswer = {
  id: number
  result: { content: { text: string }[]; structuredContent: { results: { path: string }[] } }
}

/**
 * The bytes of the snippets in a memory_search answer's text (structuredContent leaves them
 * out): each follows its `[n] path#L…` line, up to the next one or the closing notes.
 */
function snippetBytes(answer: SearchAnswer): number {
  const text = answer.result.content.map((c) => c.text).join('\n')
  return text
    .split(/^\[\d+\] [^\n]*\n/m)
    .slice(1)
    .reduce((n, block) => n + Buffer.byteLength(block.replace(/(\n\([^\n]*\))*\s*$/, '')), 0)
}

describe('/mcp batches', () => {
  it('refuses a batch over MNEMO_MCP_MAX_BATCH with JSON-RPC error -32600 and runs none of it', async () => {
    const { post, embedder } = await listening({ MNEMO_MCP_MAX_BATCH: '3' })
    const res = await post([1, 2, 3, 4].map((id) => searchCall(id, `query ${id}`)))
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: a batch of 4 messages; at most 3 (MNEMO_MCP_MAX_BATCH)' },
    })
    expect(embedder.started()).toBe(0)
    const fits = await post([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' })))
    expect(fits.status).toBe(200)
    expect(await fits.json()).toHaveLength(3)
  })

  it('runs the tool calls of one batch one after another and answers every one', async () => {
    const { post, embedder } = await listening({})
    const queries = ['qwen-max model', 'Postgres 16', 'travel plans', 'search index', 'deploy friday']
    const res = await post(queries.map((query, i) => searchCall(i + 1, query)))
    expect(res.status).toBe(200)
    const answers = (await res.json()) as { id: number; result: { isError?: boolean } }[]
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4, 5])
    for (const answer of answers) expect(answer.result.isError).toBeFalsy()
    // Each search embeds its query, held for a moment: together they would overlap.
    expect(embedder.started()).toBe(queries.length)
    expect(embedder.maxInFlight()).toBe(1)
  })

  it('shares one request’s results and snippet bytes among the searches of a batch', async () => {
    const { post } = await listening({ MNEMO_SNIPPET_BYTES_PER_SEARCH: '2000' })
    // Sixty sections: sixty chunks holding the query's words.
    t.ws.write(
      'memory/notes.md',
      Array.from({ length: 60 }, (_, i) => `## Note ${i}\n- the memory model, part ${i}\n`).join('\n'),
    )
    await t.sync()
    const everything = { maxResults: 100, minScore: 0 }
    const alone = (await (await post(searchCall(1, 'the a of memory model', everything))).json()) as SearchAnswer
    const aloneResults = alone.result.structuredContent.results
    expect(aloneResults.length).toBeGreaterThan(25)
    expect(snippetBytes(alone)).toBeLessThanOrEqual(2000)
    expect(snippetBytes(alone)).toBeGreaterThan(1000)

    const batch = (await (
      await post([1, 2, 3, 4].map((id) => searchCall(id, 'the a of memory model', everything)))
    ).json()) as SearchAnswer[]
    for (const answer of batch) {
      const results = answer.result.structuredContent.results
      expect(results.length).toBe(25)
      expect(snippetBytes(answer)).toBeLessThanOrEqual(500)
      expect(snippetBytes(answer)).toBeGreaterThan(0)
    }
  })
})
