/**
 * What clients meet right after a big cold index, while the index's background upkeep runs
 * (SQLite merges its FTS5 segments and builds its impact lists, for minutes at a million
 * chunks): a re-scan of the unchanged workspace (a restart's first sync, or the watcher's),
 * searches of common words with no write between them (the benchmark's worst case, whose
 * statistics only writes change), writes of a short note, a search for the word each write
 * brought, and one of common words (whose statistics the write before it changed).
 */
import { makeCommonQueries } from './corpus.js'
import type { createClient } from './http-client.js'
import { median } from './stats.js'

/** Writes timed, one every WRITE_GAP_MS, as an agent's notes come. */
const WRITES = 20
const WRITE_GAP_MS = 100
const PROBE_FILE = '/files/memory/after-index-probe.md'

export type AfterIndex = {
  rescanMs: number
  writeP50Ms: number
  writeMaxMs: number
  /** A search for the word the write before it brought (it must find it). */
  searchP50Ms: number
  searchMaxMs: number
  /** Then a search of common words. */
  commonP50Ms: number
  commonMaxMs: number
  /** Searches of common words before the writes, one every WRITE_GAP_MS. */
  quietCommonP50Ms: number
  quietCommonMaxMs: number
}

/** Times a search of each of `queries`, one every WRITE_GAP_MS. */
async function searchesOf(client: ReturnType<typeof createClient>, queries: readonly string[]): Promise<number[]> {
  const ms: number[] = []
  for (const query of queries) {
    const found = await client.request('POST', '/search', { query })
    if (found.status !== 200) throw new Error(`a search failed: ${found.status} ${found.body}`)
    ms.push(found.ms)
    await new Promise((resolve) => setTimeout(resolve, WRITE_GAP_MS))
  }
  return ms
}

/** The searches and writes first (a re-scan may outlast the upkeep), then the re-scan. */
export async function probeAfterIndex(client: ReturnType<typeof createClient>): Promise<AfterIndex> {
  const writesMs: number[] = []
  const searchesMs: number[] = []
  const commonMs: number[] = []
  const common = makeCommonQueries(2 * WRITES)
  const quietMs = await searchesOf(client, common.slice(WRITES))
  for (let i = 0; i < WRITES; i++) {
    const word = `probeword${i}x`
    const written = await client.request('PUT', PROBE_FILE, { content: `probe note ${word}` })
    if (written.status >= 300) throw new Error(`a write failed: ${written.status} ${written.body}`)
    writesMs.push(written.ms)
    const found = await client.request('POST', '/search', { query: word })
    if ((JSON.parse(found.body) as { results?: unknown[] }).results?.length !== 1) {
      throw new Error(`a search did not find what the write before it brought: ${found.status} ${found.body}`)
    }
    searchesMs.push(found.ms)
    const commonFound = await client.request('POST', '/search', { query: common[i] })
    if (commonFound.status !== 200) throw new Error(`a search failed: ${commonFound.status} ${commonFound.body}`)
    commonMs.push(commonFound.ms)
    await new Promise((resolve) => setTimeout(resolve, WRITE_GAP_MS))
  }
  const removed = await client.request('DELETE', PROBE_FILE)
  if (removed.status >= 300) throw new Error(`removing the probe failed: ${removed.status} ${removed.body}`)
  const rescan = await client.indexAll()
  return {
    rescanMs: rescan.ms,
    writeP50Ms: median(writesMs),
    writeMaxMs: Math.max(...writesMs),
    searchP50Ms: median(searchesMs),
    searchMaxMs: Math.max(...searchesMs),
    commonP50Ms: median(commonMs),
    commonMaxMs: Math.max(...commonMs),
    quietCommonP50Ms: median(quietMs),
    quietCommonMaxMs: Math.max(...quietMs),
  }
}
