/**
 * One process syncs a space at a time when several share its index (PostgreSQL replicas):
 * a full-scan sync runs once this process claims the space, and is skipped while another
 * holds the claim, since that one writes what it finds into the same index.
 */
import type { SpaceStore } from '../store/port.js'
import { emptySyncResult, type SyncResult } from './sync-result.js'

export async function whenClaimed(
  store: Pick<SpaceStore, 'claimSync'>,
  reason: string,
  sync: () => Promise<SyncResult>,
): Promise<SyncResult> {
  const release = await store.claimSync()
  if (!release) return emptySyncResult(false, `${reason} (skipped: another process is syncing this space)`)
  try {
    return await sync()
  } finally {
    await release()
  }
}
