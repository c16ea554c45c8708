/**
 * Waits for the impact lists a SQLite index builds in the background after its first sync
 * (src/store/sqlite/impact-lists.ts), so latency is measured on the index as it serves
 * from then on, not while the lists are being built beside the searches.
 */
import path from 'node:path'
import { LIST_MIN_ROWS } from '../src/store/sqlite/impact-lists.js'
import { impactListStatus } from '../src/store/sqlite/impact-status.js'

/** Resolves once the index in `dataDir` has its lists (or is too small for any); ms waited. */
export async function waitForImpactLists(dataDir: string, chunks: number, timeoutMs = 20 * 60_000): Promise<number> {
  if (chunks < LIST_MIN_ROWS) return 0
  const started = Date.now()
  const dbPath = path.join(dataDir, 'index.sqlite')
  while (!impactListStatus(dbPath).built) {
    if (Date.now() - started > timeoutMs) throw new Error('the impact lists were not built in time')
    await new Promise((r) => setTimeout(r, 500))
  }
  return Date.now() - started
}
