/**
 * Waits for the impact lists an index builds in the background after a sync (SQLite's,
 * src/store/sqlite/impact-lists.ts, and its rare lists, rare-lists.ts; PostgreSQL's after a
 * first index, src/store/postgres/list-resume.ts), so latency is measured on the index as it
 * serves from then on, not while the lists are being built beside the searches.
 */
import type { BenchEngine } from './engines.js'

/** Resolves once the index of `dataDir` has its lists (or is too small for any); ms waited. */
export async function waitForImpactLists(
  engine: Pick<BenchEngine, 'listsBuilt'>,
  dataDir: string,
  chunks: number,
  timeoutMs = 20 * 60_000,
): Promise<number> {
  const started = Date.now()
  while (!(await engine.listsBuilt(dataDir, chunks))) {
    if (Date.now() - started > timeoutMs) throw new Error('the impact lists were not built in time')
    await new Promise((r) => setTimeout(r, 500))
  }
  return Date.now() - started
}
