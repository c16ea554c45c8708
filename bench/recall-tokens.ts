/**
 * What a recall costs a model in tokens (issue 34): memory_search and memory_get called over
 * MCP on the built service, on the synthetic workspace, and each result counted as a client
 * such as OpenClaw passes it to the model: the text content plus the structured content
 * serialised as JSON. Tokens are estimated as the search's maxTokens budget counts them
 * (src/text/token-estimate.ts: a CJK character ≈ 1 token, other text ≈ 4 characters a token).
 */
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { estimateTokens } from '../src/text/token-estimate.js'
import { makeQueries, writeCorpus } from './corpus.js'
import { startServer } from './server-process.js'

export type RecallTokensOptions = { tmp: string; files: number; notesPerFile: number; queries: number }

type Counted = { text: number; structured: number }

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)

export async function benchRecallTokens(opts: RecallTokensOptions) {
  const workspace = path.join(opts.tmp, 'workspace')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const server = await startServer({ MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: path.join(opts.tmp, 'data') })
  const indexed = await fetch(`${server.baseUrl}/index?wait=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  if (!indexed.ok) throw new Error(`index failed: ${indexed.status}`)
  const client = new Client({ name: 'bench-recall-tokens', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
  const count = async (name: string, args: Record<string, unknown>): Promise<Counted & { cited: string[] }> => {
    const res = await client.callTool({ name, arguments: args })
    const text = (res.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n')
    const structured = res.structuredContent === undefined ? '' : JSON.stringify(res.structuredContent)
    const cited = [...text.matchAll(/^\[\d+\] (\S+)#L(\d+)/gm)].map((m) => `${m[1]}#${m[2]}`)
    return { text: estimateTokens(text), structured: estimateTokens(structured), cited }
  }
  const search: Counted[] = []
  const get: Counted[] = []
  let results = 0
  try {
    for (const query of makeQueries(opts.queries)) {
      const found = await count('memory_search', { query, minScore: 0 })
      search.push(found)
      results += found.cited.length
      const first = found.cited[0]
      if (first) {
        const [file, line] = first.split('#') as [string, string]
        get.push(await count('memory_get', { path: file, from: Number(line), lines: 10 }))
      }
    }
  } finally {
    await client.close()
    await server.stop()
  }
  const summary = (xs: Counted[]) => ({
    text: mean(xs.map((x) => x.text)),
    structured: mean(xs.map((x) => x.structured)),
    total: mean(xs.map((x) => x.text + x.structured)),
  })
  return {
    searches: search.length,
    resultsPerSearch: results / search.length,
    search: summary(search),
    get: summary(get),
  }
}
