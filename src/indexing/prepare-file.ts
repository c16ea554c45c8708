/**
 * Turns one file's text into the rows the store writes: chunks with exact lines, a content
 * hash per chunk, and the analysed terms of the chunk body and of its context (enclosing
 * headings and the file path, so `2026-02-16` or a section title finds the chunk).
 */
import type { Config } from '../config/config.js'
import { indexTokens } from '../text/analyzer.js'
import { createLru } from '../shared/lru.js'
import { countLines } from '../text/lines.js'
import type { ChunkInput, FileRecord, Source } from '../domain/chunks.js'
import { blankFlushMarkers } from '../files/content-rules.js'
import { chunkDater } from '../domain/chunk-date.js'
import { chunkMarkdown } from './chunker.js'
import { embedInputHash } from './embed-input.js'

/**
 * What prepareFile makes of a text, beyond the chunking settings and the analyzer (both in
 * the index identity on their own): 2 leaves flush markers out of chunk texts, 3 dates each
 * chunk (chunk-date.ts). A change re-prepares every file (index-identity.ts).
 */
export const PREPARE_VERSION = 3

export type PreparedFile = { record: FileRecord; chunks: ChunkInput[] }

export type FileInput = {
  rel: string
  text: string
  sha256: string
  sizeBytes: number
  mtimeMs: number
  indexedAtMs: number
  /** When the file was read (read-sequence.ts). */
  readSeq: number
  source?: Source
}

/**
 * The part of a path worth searching: `memory/2026-02-16.md` → `2026-02-16`. The `memory/`
 * or `sessions/` prefix and the extension are in nearly every path, so as terms they would
 * only inflate the document frequency of "memory" and "md".
 */
export function pathContext(rel: string): string {
  return rel.replace(/^(memory|sessions)\//, '').replace(/\.(md|jsonl)$/i, '')
}

/** A chunk's analysed terms (what term analysis costs, and what a cache can keep). */
export type ChunkTerms = Pick<ChunkInput, 'bodyTerms' | 'headingTerms' | 'tokenCount'>

/**
 * Chunk terms by path and content hash. Re-indexing a file after an append analyses only
 * its new chunks: the others hit the cache. Bounded by the length of the terms kept (a
 * 400-token chunk's terms are about 3 KB), since entries differ in size by a hundredfold.
 */
export const createTermCache = (maxEntries: number, maxChars: number) =>
  createLru<string, ChunkTerms>(maxEntries, {
    maxWeight: maxChars,
    weigh: (t) => t.bodyTerms.length + t.headingTerms.length,
  })
export type TermCache = ReturnType<typeof createTermCache>

export async function prepareFile(
  input: FileInput,
  chunking: Config['chunking'],
  slicer: { maybeYield(): Promise<void> },
  termCache?: TermCache,
): Promise<PreparedFile> {
  const pieces = await chunkMarkdown(blankFlushMarkers(input.text), chunking, slicer)
  let pathTerms: string[] | undefined
  const chunks: ChunkInput[] = []
  const dateOf = chunkDater(input.rel, input.mtimeMs)
  for (const piece of pieces) {
    const headings = piece.headings.join(' / ')
    const contentHash = embedInputHash(headings, piece.text)
    const key = `${input.rel}\n${contentHash}`
    let terms = termCache?.get(key)
    if (!terms) {
      pathTerms ??= indexTokens(pathContext(input.rel))
      const body = indexTokens(piece.text)
      const context = [...indexTokens(piece.headings.join('\n')), ...pathTerms]
      terms = { bodyTerms: body.join(' '), headingTerms: context.join(' '), tokenCount: body.length + context.length }
      termCache?.set(key, terms)
    }
    chunks.push({
      startLine: piece.startLine,
      endLine: piece.endLine,
      text: piece.text,
      headings,
      contentHash,
      ...terms,
      datedMs: dateOf(piece.headings),
    })
    await slicer.maybeYield()
  }
  return {
    record: {
      path: input.rel,
      source: input.source ?? 'memory',
      sha256: input.sha256,
      sizeBytes: input.sizeBytes,
      mtimeMs: input.mtimeMs,
      lineCount: countLines(input.text),
      chunkCount: chunks.length,
      indexedAtMs: input.indexedAtMs,
      readSeq: input.readSeq,
    },
    chunks,
  }
}
