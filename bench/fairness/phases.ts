/**
 * The attacks of issue 16, one phase each, made by the agent `mallory` (or the admin) with
 * one token, while alice and the probes watch (run-phase.ts).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { chineseText, makeQueries, writeCorpus } from '../corpus.js'
import { TOKENS, type AttackContext, type Phase } from './run-phase.js'

/** Just under MNEMO_MAX_FILE_BYTES (8 MiB): about 7,000 chunks of Chinese. */
const BIG_FILE_BYTES = 8_000_000

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const tally = (statuses: (number | undefined)[]) => {
  const counts = new Map<string, number>()
  for (const s of statuses) counts.set(String(s ?? 'no answer'), (counts.get(String(s ?? 'no answer')) ?? 0) + 1)
  return [...counts].map(([s, n]) => `${n}× ${s}`).join(', ')
}

/** PUTs `text` as mallory's memory/<name>; remembers it when acknowledged. */
async function putFile(ctx: AttackContext, name: string, text: string): Promise<number | undefined> {
  const res = await ctx.call('PUT', `/files/memory/${name}`, {
    token: TOKENS.mallory,
    body: text,
    contentType: 'text/markdown',
  })
  if (res && res.status < 300) ctx.acknowledged.set(path.join(ctx.agentsDir, 'mallory', 'memory', name), text)
  return res?.status
}

/** Waits until mallory's index lists `rel` with the SHA-256 of `text`. */
async function indexed(ctx: AttackContext, rel: string, text: string): Promise<boolean> {
  const want = sha256(text)
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline) {
    const res = await ctx.call('GET', '/files', { token: TOKENS.mallory })
    const files =
      res && res.status === 200 ? (JSON.parse(res.text) as { files: { path: string; sha256: string }[] }).files : []
    if (files.some((f) => f.path === rel && f.sha256 === want)) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

const texts = new Map<number, string>()
const bigText = (seed: number) => {
  let text = texts.get(seed)
  if (!text) texts.set(seed, (text = chineseText(BIG_FILE_BYTES, seed)))
  return text
}

export const PHASES: Phase[] = [
  {
    name: 'cjk-one',
    what: 'one 8 MB Chinese file written with PUT /files',
    before: () => void bigText(1),
    attack: async (ctx) => `PUT ${tally([await putFile(ctx, 'big-1.md', bigText(1))])}`,
  },
  {
    name: 'cjk-three',
    what: 'three 8 MB Chinese files written with PUT at once',
    before: () => [2, 3, 4].forEach(bigText),
    attack: async (ctx) => {
      const statuses = await Promise.all([2, 3, 4].map((i) => putFile(ctx, `big-${i}.md`, bigText(i))))
      return `PUT ${tally(statuses)}`
    },
  },
  {
    name: 'cjk-disk',
    what: 'an 8 MB Chinese file dropped into the folder (watcher path)',
    before: () => void bigText(5),
    attack: async (ctx) => {
      fs.writeFileSync(path.join(ctx.agentsDir, 'mallory', 'memory', 'disk.md'), bigText(5))
      return (await indexed(ctx, 'memory/disk.md', bigText(5))) ? 'indexed' : 'NOT indexed within 300 s'
    },
  },
  {
    name: 'cjk-rebuild',
    what: 'a full rebuild of an index holding three 8 MB Chinese files',
    before: ({ agentsDir }) => {
      for (const i of [6, 7, 8]) fs.writeFileSync(path.join(agentsDir, 'mallory', 'memory', `r-${i}.md`), bigText(i))
    },
    attack: async (ctx) => {
      // The files were on disk before the start: wait for their first index, then rebuild.
      await indexed(ctx, 'memory/r-8.md', bigText(8))
      const res = await ctx.call('POST', '/index?wait=true', { token: TOKENS.mallory, body: '{"full":true}' })
      return `rebuild ${res?.status ?? 'no answer'}`
    },
  },
  {
    name: 'mcp-flood',
    what:
      'ten MCP requests, each a batch of 100 memory_search calls (maxResults 100, 4,000-character queries); ' +
      'then ten batches of 20, the most a batch may hold',
    before: ({ agentsDir }) => writeCorpus(path.join(agentsDir, 'mallory'), 20, 20, 9),
    attack: async (ctx) => {
      const query = makeQueries(400, 5).join(' ').slice(0, 4000)
      const batch = (calls: number) =>
        JSON.stringify(
          Array.from({ length: calls }, (_, id) => ({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'memory_search', arguments: { query, maxResults: 100, minScore: 0 } },
          })),
        )
      const flood = async (calls: number) => {
        const body = batch(calls)
        return Promise.all(
          Array.from({ length: 10 }, async () => {
            const res = await fetch(`${ctx.server.baseUrl}/mcp`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${TOKENS.mallory}`,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
              },
              body,
              signal: AbortSignal.timeout(300_000),
            }).catch(() => null)
            await res?.text()
            return res?.status
          }),
        )
      }
      return `/mcp ×100: ${tally(await flood(100))}; ×20: ${tally(await flood(20))}`
    },
  },
  {
    name: 'bodies',
    what: 'one hundred 15 MB /flush bodies at once',
    attack: async (ctx) => {
      const body = JSON.stringify({ content: `${'- a note that is far too long. '.repeat(32)}\n`.repeat(15_000) })
      const statuses = await Promise.all(
        Array.from(
          { length: 100 },
          async () => (await ctx.call('POST', '/flush', { token: TOKENS.mallory, body }))?.status,
        ),
      )
      return `/flush ${tally(statuses)}`
    },
  },
  {
    name: 'agents',
    what: '2,000 agents created by the admin (16 at a time)',
    attack: async (ctx) => {
      const statuses: (number | undefined)[] = []
      let next = 0
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 2000) {
            const id = `agent-${String(next++).padStart(4, '0')}`
            const text = `# ${id}\n- created by the fairness suite\n`
            const res = await ctx.call('PUT', '/files/MEMORY.md', {
              token: TOKENS.admin,
              agent: id,
              body: text,
              contentType: 'text/markdown',
            })
            if (res && res.status < 300) ctx.acknowledged.set(path.join(ctx.agentsDir, id, 'MEMORY.md'), text)
            statuses.push(res?.status)
          }
        }),
      )
      return `PUT ${tally(statuses)}`
    },
  },
]
