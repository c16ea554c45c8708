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
import { chunkMarkdownFrom, type Chunk, type ChunkCheckpoint } from './chunker.js'
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
 * What preparing a file made of its text up to a chunker checkpoint (chunker.ts): the
 * chunks before it, ready but for their dates, which may depend on the file's mtime.
 */
type FileCheckpoint = { chunker: ChunkCheckpoint; inputs: readonly ChunkInput[]; pieces: readonly Chunk[] }

/**
 * What preparing files remembers, shared by every agent's indexer. `terms`: chunk terms
 * by path and content hash, so re-indexing a file after an edit analyses only its changed
 * chunks; bounded by the length of the terms kept (a 400-token chunk's terms are about
 * 3 KB), since entries differ in size by a hundredfold. `files`: the last checkpoint of
 * recently prepared files, by file (its absolute path), so a file that grew by lines at its
 * end (a day file after a flush, a transcript after a turn) is chunked, hashed and analysed
 * from there on, not from its first line; bounded by the length of the text kept, and a
 * file longer than a quarter of that bound keeps none (it would push out every other).
 */
export function createPrepareCache(bounds: { chunks: number; termChars: number; files: number; fileChars: number }) {
  return {
    terms: createLru<string, ChunkTerms>(bounds.chunks, {
      maxWeight: bounds.termChars,
      weigh: (t) => t.bodyTerms.length + t.headingTerms.length,
    }),
    files: createLru<string, FileCheckpoint>(bounds.files, {
      maxWeight: bounds.fileChars,
      weigh: (f) => f.chunker.prefix.length,
    }),
    maxFileChars: bounds.fileChars / 4,
  }
}
export type PrepareCache = ReturnType<typeof createPrepareCache>

/**
 * The rows of one file. `cache.files` is looked up by `key` (the file's absolute path): a
 * checkpoint of the same file is only a shortcut, used when the text still starts with what
 * it was taken from, so the rows are the same as without it.
 */
export async function prepareFile(
  input: FileInput,
  chunking: Config['chunking'],
  slicer: { maybeYield(): Promise<void> },
  cache?: { prepare: PrepareCache; key: string },
): Promise<PreparedFile> {
  const previous = cache?.prepare.files.get(cache.key) ?? null
  const made = await chunkMarkdownFrom(blankFlushMarkers(input.text), previous?.chunker ?? null, chunking, slicer)
  const dater = chunkDater(input.rel, input.mtimeMs)
  const pieces = [...(previous?.pieces.slice(0, made.skipped) ?? []), ...made.chunks]
  const chunks: ChunkInput[] = []
  // Chunks before the checkpoint resumed from are as they were, but for dates by mtime.
  for (const kept of previous?.inputs.slice(0, made.skipped) ?? []) {
    const datedMs = dater.byMtime ? dater.of((pieces[chunks.length] as Chunk).headings) : kept.datedMs
    chunks.push(kept.datedMs === datedMs ? kept : { ...kept, datedMs })
  }
  let pathTerms: string[] | undefined
  for (const piece of made.chunks) {
    const headings = piece.headings.join(' / ')
    const contentHash = embedInputHash(headings, piece.text)
    const key = `${input.rel}\n${contentHash}`
    let terms = cache?.prepare.terms.get(key)
    if (!terms) {
      pathTerms ??= indexTokens(pathContext(input.rel))
      const body = indexTokens(piece.text)
      const context = [...indexTokens(piece.headings.join('\n')), ...pathTerms]
      terms = { bodyTerms: body.join(' '), headingTerms: context.join(' '), tokenCount: body.length + context.length }
      cache?.prepare.terms.set(key, terms)
    }
    chunks.push({
      startLine: piece.startLine,
      endLine: piece.endLine,
      text: piece.text,
      headings,
      contentHash,
      ...terms,
      datedMs: dater.of(piece.headings),
    })
    await slicer.maybeYield()
  }
  if (cache && made.checkpoint.prefix.length > cache.prepare.maxFileChars) cache.prepare.files.delete(cache.key)
  else if (cache) {
    const upTo = made.checkpoint.chunks
    cache.prepare.files.set(cache.key, {
      chunker: made.checkpoint,
      inputs: chunks.slice(0, upTo),
      pieces: pieces.slice(0, upTo),
    })
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
