/**
 * Right after a big cold index, and once its upkeep is over, for several builds in turn
 * (after-index.ts): each build's dist/main.js indexes the same synthetic workspace from
 * nothing, is probed at once (while its SQLite upkeep runs), then again once its impact
 * lists are built. No embedding provider.
 *
 *   npx tsx bench/after-index-ab.ts --chunks 300000 before=/path/to/worktree/dist/main.js after=dist/main.js
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { probeAfterIndex, type AfterIndex } from './after-index.js'
import { writeCorpus } from './corpus.js'
import { openEngine } from './engines.js'
import { createClient } from './http-client.js'
import { waitForImpactLists } from './impact-wait.js'
import { startServer } from './server-process.js'
import { fmt } from './stats.js'

const NOTES_PER_FILE = 50
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { chunks: { type: 'string', default: '300000' } },
})
const chunks = Number(values.chunks)
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-after-index-'))
const workspace = path.join(tmp, 'workspace')
writeCorpus(workspace, Math.ceil(chunks / NOTES_PER_FILE), NOTES_PER_FILE)

const line = (label: string, when: string, p: AfterIndex) =>
  `| ${label} | ${when} | ${fmt(p.rescanMs)} ms | ${fmt(p.writeP50Ms)} / ${fmt(p.writeMaxMs)} ms | ` +
  `${fmt(p.searchP50Ms)} / ${fmt(p.searchMaxMs)} ms | ${fmt(p.commonP50Ms)} / ${fmt(p.commonMaxMs)} ms | ` +
  `${fmt(p.quietCommonP50Ms)} / ${fmt(p.quietCommonMaxMs)} ms |`
const rows = [
  '| build | when | re-scan | write p50 / max | search p50 / max | common words after a write p50 / max | common words, no write p50 / max |',
  '|---|---|---|---|---|---|---|',
]
try {
  for (const build of positionals) {
    const [label, main] = build.split('=') as [string, string]
    const dataDir = path.join(tmp, `data-${label}`)
    const server = await startServer({ MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir }, { main })
    const client = createClient(server.baseUrl)
    try {
      const indexed = JSON.parse((await client.indexAll()).body) as { chunks: number }
      rows.push(line(label, 'during the upkeep', await probeAfterIndex(client)))
      const listsMs = await waitForImpactLists(await openEngine('sqlite'), dataDir, indexed.chunks)
      rows.push(line(label, `after it (${fmt(listsMs / 1000)} s more)`, await probeAfterIndex(client)))
    } finally {
      client.close()
      await server.stop()
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  console.log(`${chunks} chunks\n${rows.join('\n')}`)
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
