import { afterEach, describe, expect, it } from 'vitest'
import { createDashscopeRerank } from '../../src/providers/dashscope-rerank.js'
import { createHttpRerank } from '../../src/providers/http-rerank.js'
import { useTestApp } from '../helpers/build-test-app.js'
import { embeddingsReply, startScriptedServer, type ScriptedAnswer } from '../helpers/scripted-server.js'

const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function server(script: ScriptedAnswer[]) {
  const s = await startScriptedServer(script)
  servers.push(s)
  return s
}

const DOCS = ['first doc', 'second doc', 'third doc']

describe('http rerank (Cohere/Jina/TEI)', () => {
  it('sends {model, query, documents, top_n} and maps results by index', async () => {
    const s = await server([
      {
        body: {
          results: [
            { index: 2, relevance_score: 0.8 },
            { index: 0, relevance_score: 0.3 },
          ],
          usage: { total_tokens: 42 },
        },
      },
    ])
    const rerank = createHttpRerank({ baseUrl: s.url, apiKey: 'k', model: 'bge-reranker-v2-m3', timeoutMs: 1000 })
    const out = await rerank.rerank('which doc', DOCS, { topN: 3 })
    expect(out).toEqual({ scores: [0.3, 0, 0.8], tokens: 42 })
    expect(s.requests[0]).toMatchObject({
      url: '/rerank',
      headers: { authorization: 'Bearer k' },
      body: { model: 'bge-reranker-v2-m3', query: 'which doc', documents: DOCS, top_n: 3 },
    })
  })

  it("accepts TEI's bare list and squashes raw logits into [0, 1]", async () => {
    const s = await server([
      {
        body: [
          { index: 0, score: 3.2 },
          { index: 1, score: -1.5 },
          { index: 2, score: 0 },
        ],
      },
    ])
    const out = await createHttpRerank({ baseUrl: s.url, apiKey: undefined, model: undefined, timeoutMs: 1000 }).rerank(
      'q',
      DOCS,
      { topN: 3 },
    )
    expect(out.scores[0]).toBeGreaterThan(0.9)
    expect(out.scores[1]).toBeLessThan(0.2)
    expect(out.scores[2]).toBeCloseTo(0.5)
    expect(s.requests[0]?.body).not.toHaveProperty('model')
  })

  it.each([
    ['a malformed answer', { body: { ranking: [] } }, 'PROVIDER_FAILED'],
    ['an index out of range', { body: { results: [{ index: 7, relevance_score: 0.5 }] } }, 'PROVIDER_FAILED'],
    ['a 500', { status: 500 }, 'PROVIDER_FAILED'],
    ['a slow answer', { delayMs: 1000, body: { results: [] } }, 'PROVIDER_TIMEOUT'],
  ])('fails on %s without retrying', async (_name, answer, code) => {
    const s = await server([answer])
    const rerank = createHttpRerank({ baseUrl: s.url, apiKey: undefined, model: 'm', timeoutMs: 150 })
    await expect(rerank.rerank('q', DOCS, { topN: 3 })).rejects.toMatchObject({ code })
    expect(s.requests).toHaveLength(1)
  })
})

describe('dashscope rerank (gte-rerank)', () => {
  it('speaks the native request and response shape', async () => {
    const s = await server([
      {
        body: {
          output: {
            results: [
              { index: 1, relevance_score: 0.93 },
              { index: 0, relevance_score: 0.12 },
            ],
          },
          usage: { total_tokens: 17 },
          request_id: 'abc',
        },
      },
    ])
    const rerank = createDashscopeRerank({
      url: `${s.url}/api/v1/services/rerank/text-rerank/text-rerank`,
      apiKey: 'sk-ds',
      model: undefined,
      timeoutMs: 1000,
    })
    const out = await rerank.rerank('问题', DOCS, { topN: 3 })
    expect(out).toEqual({ scores: [0.12, 0.93, 0], tokens: 17 })
    expect(s.requests[0]).toMatchObject({
      url: '/api/v1/services/rerank/text-rerank/text-rerank',
      headers: { authorization: 'Bearer sk-ds' },
      body: {
        model: 'gte-rerank',
        input: { query: '问题', documents: DOCS },
        parameters: { top_n: 3, return_documents: false },
      },
    })
  })

  it('refuses an answer without output.results', async () => {
    const s = await server([{ body: { code: 'InvalidApiKey', message: 'bad key' } }])
    const rerank = createDashscopeRerank({ url: s.url, apiKey: 'x', model: 'gte-rerank', timeoutMs: 1000 })
    await expect(rerank.rerank('q', DOCS, { topN: 3 })).rejects.toMatchObject({ code: 'PROVIDER_FAILED' })
  })
})

describe('providers configured through the environment', () => {
  it('searches hybrid with an OpenAI-compatible embedder and an http reranker', async () => {
    const embed = await server([{ reply: embeddingsReply(8) }])
    const rerank = await server([
      {
        reply: (req) => ({
          results: (req as { documents: string[] }).documents.map((d, index) => ({
            index,
            relevance_score: d.includes('Shinjuku') ? 0.95 : 0.05,
          })),
        }),
      },
    ])
    const t = await useTestApp({
      corpus: true,
      env: {
        MNEMO_EMBED_PROVIDER: 'auto',
        MNEMO_EMBED_BASE_URL: `${embed.url}/v1`,
        MNEMO_EMBED_API_KEY: 'sk-embed',
        MNEMO_EMBED_MODEL: 'my-embedder',
        MNEMO_EMBED_DIMENSIONS: '8',
        MNEMO_RERANK_PROVIDER: 'http',
        MNEMO_RERANK_BASE_URL: rerank.url,
      },
    })
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<Record<string, unknown>>()
    expect(status).toMatchObject({
      embedding: { provider: 'openai', model: 'my-embedder', dims: 8 },
      vectorsPending: 0,
    })
    expect(JSON.stringify(status)).not.toContain('sk-embed')
    const res = await t.search({ query: 'hotel near the station', minScore: 0 })
    expect(res.statusCode).toBe(200)
    expect(res.body.mode).toBe('hybrid')
    expect(res.body.results[0]).toMatchObject({ path: 'memory/travel.md', rerankScore: 0.95 })
    expect(embed.requests.length).toBeGreaterThan(1)
  })
})
