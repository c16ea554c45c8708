/**
 * The settings an index was built with. A sync that finds a different identity in the
 * index re-chunks, re-analyses and re-embeds every file, so changing the chunk size, the
 * analyzer or the embedding provider, model or dimensions never leaves a mix of old and new
 * chunks or vectors.
 */
import type { Config } from '../config/config.js'
import { ANALYZER_VERSION } from '../text/analyzer.js'
import { PREPARE_VERSION } from './prepare-file.js'

/** `schema`: the engine's schema version (StorageEngine.schemaVersion). */
export function indexIdentity(schema: number, chunking: Config['chunking'], embedding: object | null): string {
  return JSON.stringify({
    schema,
    analyzer: ANALYZER_VERSION,
    prepare: PREPARE_VERSION,
    chunkTokens: chunking.maxTokens,
    chunkOverlapTokens: chunking.overlapTokens,
    embedding,
  })
}
