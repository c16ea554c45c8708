/**
 * The settings an index was built with. A sync that finds a different identity in the
 * index re-chunks and re-analyses every file, so changing the chunk size or upgrading the
 * analyzer never leaves a mix of old and new chunks.
 */
import type { Config } from '../config/config.js'
import { SCHEMA_VERSION } from '../store/schema.js'
import { ANALYZER_VERSION } from '../text/analyzer.js'

export function indexIdentity(chunking: Config['chunking']): string {
  return JSON.stringify({
    schema: SCHEMA_VERSION,
    analyzer: ANALYZER_VERSION,
    chunkTokens: chunking.maxTokens,
    chunkOverlapTokens: chunking.overlapTokens,
  })
}
