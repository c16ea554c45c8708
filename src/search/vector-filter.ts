/** The search filters as a predicate on a chunk's path and source (pure). */
import { MEMORY_FILE } from '../files/memory-paths.js'
import type { VectorFilters } from '../store/vector-repo.js'

export function passesFilters(chunk: { path: string; source: string }, filters: VectorFilters): boolean {
  if (filters.source && chunk.source !== filters.source) return false
  if (filters.pathPrefix && !chunk.path.startsWith(filters.pathPrefix)) return false
  return !(filters.excludeMemoryFile && chunk.path === MEMORY_FILE)
}
