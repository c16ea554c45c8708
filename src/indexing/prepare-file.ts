/**
 * Turns one file's text into the rows the store writes: chunks with exact lines, a content
 * hash per chunk, and the analysed terms of the chunk body and of its context (enclosing
 * headings and the file path, so `2026-02-16` or a section title finds the chunk).
 */
import { indexTokens } from '../text/analyzer.js'
import { lineTermString } from '../text/line-terms.js'
import { createLru } from '../shared/lru.js'
import { countLines } from '../text/lines.js'
import type { ChunkInput, FileRecord, Source } from '../domain/chunks.js'
import { blankFlushMarkers } from '../files/content-rules.js'
import { scanEntries, type TextEntry } from '../files/entry-text.js'
import { chunkDater } from '../domain/chunk-date.js'
import {
  chunkMarkdownFrom,
  type Chunk,
  type ChunkCheckpoint,
  type ChunkOptions,
  type MalformedMeta,
  type Yielder,
} from './chunker.js'
import { embedInputHash } from './embed-input.js'

/**
 * What prepareFile makes of a text, beyond the chunking settings and the analyzer (both in
 * the index identity on their own): 2 leaves flush markers out of chunk texts, 3 dates each
 * chunk (chunk-date.ts), 4 cuts chunks at entries and gives each its entry (chunker.ts), 5
 * cuts at every entry and hashes each entry's text (files/entry-text.ts). A change
 * re-prepares every file (index-identity.ts).
 */
export const PREPARE_VERSION = 5

/** A file's rows, and the metadata comments it holds that were read as text (to warn about). */
export type PreparedFile = { record: FileRecord; chunks: ChunkInput[]; malformed: MalformedMeta[] }

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
 * Where the entries of a file's text can be scanned from on (files/entry-text.ts
 * scanEntries' `restart`): `line`, a heading that closes every entry before it, starts at
 * character `at`. While the text still starts with `before` (its text up to that line and
 * the heading itself, so the line is still such a heading) the entries before it are as
 * they were, and so are the entry hashes of the chunks kept from before it.
 */
export type EntryScan = { line: number; at: number; before: string }

/**
 * What preparing a file made of its text up to a chunker checkpoint (chunker.ts): the
 * chunks before it, ready but for their dates, which may depend on the file's mtime; and
 * where a scan of its entries can start again (null: from the first line).
 */
export type FileCheckpoint = {
  chunker: ChunkCheckpoint
  inputs: readonly ChunkInput[]
  pieces: readonly Chunk[]
  entryScan: EntryScan | null
}

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
      weigh: (f) => f.chunker.prefix.length + (f.entryScan?.before.length ?? 0),
    }),
    maxFileChars: bounds.fileChars / 4,
  }
}
export type PrepareCache = ReturnType<typeof createPrepareCache>

/** A file's rows, and the checkpoint a later preparation of it can resume from. */
export type PreparedText = { file: PreparedFile; checkpoint: FileCheckpoint }

const termsKey = (rel: string, contentHash: string) => `${rel}\n${contentHash}`

/**
 * The rows of `input`, chunked from `previous` when its text starts with what that was taken
 * from; chunks whose terms `terms` holds are not analysed again, and the others' are added.
 */
export async function prepareText(
  input: FileInput,
  chunking: ChunkOptions,
  slicer: Yielder,
  previous: FileCheckpoint | null = null,
  terms?: PrepareCache['terms'],
): Promise<PreparedText> {
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
    const key = termsKey(input.rel, contentHash)
    let analysed = terms?.get(key)
    if (!analysed) {
      pathTerms ??= indexTokens(pathContext(input.rel))
      const body = lineTermString(piece.text)
      const context = [...indexTokens(piece.headings.join('\n')), ...pathTerms]
      analysed = {
        bodyTerms: body.terms,
        headingTerms: context.join(' '),
        tokenCount: body.count + context.length,
      }
      terms?.set(key, analysed)
    }
    chunks.push({
      startLine: piece.startLine,
      endLine: piece.endLine,
      text: piece.text,
      headings,
      contentHash,
      ...analysed,
      datedMs: dater.of(piece.headings),
      entry: piece.entry,
    })
    await slicer.maybeYield()
  }
  const entryScan = withEntryHashes(input.text, chunks, made.skipped, previous?.entryScan ?? null)
  const upTo = made.checkpoint.chunks
  return {
    file: {
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
      malformed: made.malformed,
    },
    checkpoint: { chunker: made.checkpoint, inputs: chunks.slice(0, upTo), pieces: pieces.slice(0, upTo), entryScan },
  }
}

/**
 * Gives each chunk the hash of the entry it is in (the chunker cuts at every entry, so a
 * chunk is in one at most). Chunks kept from a checkpoint get it too: their entry may have
 * grown since (lines appended to the last one), and their rows must say so. The text is
 * scanned from `from` on when it still starts as it did there and the chunks before that
 * line are all among the `kept` first ones: a flush appends to a day file, and scanning its
 * every entry again made each flush slower by the flushes before it (BENCHMARKS.md, issue
 * 35). Returns where the next preparation of this file may scan from.
 */
function withEntryHashes(text: string, chunks: ChunkInput[], kept: number, from: EntryScan | null): EntryScan | null {
  if (!text.includes('<!--') && !/^## /m.test(text)) return null
  const resumed = from !== null && text.startsWith(from.before) && keptBefore(chunks, kept, from.line) ? from : null
  const first = resumed?.line ?? 1
  // Lines of the scanned text are counted from `first`.
  const shift = first - 1
  const offset = resumed?.at ?? 0
  const scan = scanEntries(text.slice(offset))
  const entries = scan.entries
  let e = 0
  chunks.forEach((c, i) => {
    if (c.startLine < first) return
    while (
      e < entries.length &&
      Math.max((entries[e] as TextEntry).endLine, (entries[e] as TextEntry).startLine) + shift < c.startLine
    )
      e++
    const entry = entries[e]
    const hash = entry && entry.startLine + shift <= c.endLine ? entry.hash : null
    if ((c.entryHash ?? null) !== hash) chunks[i] = { ...c, entryHash: hash }
  })
  // A resumed scan starts at its heading, so it has a restart point: null only from the first line.
  if (scan.restart === null) return null
  const at = lineStart(text, offset, scan.restart)
  const end = text.indexOf('\n', at)
  return { line: scan.restart + shift, at, before: text.slice(0, end === -1 ? text.length : end) }
}

/** Whether every chunk starting before `line` is among the first `kept` and ends before it. */
function keptBefore(chunks: readonly ChunkInput[], kept: number, line: number): boolean {
  let i = 0
  while (i < chunks.length && (chunks[i] as ChunkInput).startLine < line) i++
  return i <= kept && (i === 0 || (chunks[i - 1] as ChunkInput).endLine < line)
}

/** Where the `line`-th line (1-based) of the text from `from` on starts in `text`. */
function lineStart(text: string, from: number, line: number): number {
  let at = from
  for (let n = 1; n < line; n++) at = text.indexOf('\n', at) + 1
  return at
}

/** Keeps `prepared`'s checkpoint under `key`, and its chunks' terms when `withTerms`. */
function remember(cache: PrepareCache, key: string, prepared: PreparedText, withTerms: boolean): void {
  if (withTerms) {
    for (const c of prepared.file.chunks) {
      cache.terms.set(termsKey(prepared.file.record.path, c.contentHash), {
        bodyTerms: c.bodyTerms,
        headingTerms: c.headingTerms,
        tokenCount: c.tokenCount,
      })
    }
  }
  if (prepared.checkpoint.chunker.prefix.length > cache.maxFileChars) cache.files.delete(key)
  else cache.files.set(key, prepared.checkpoint)
}

/**
 * Keeps what another thread prepared of a file it read (read-there.ts) as if it had been
 * prepared here: its checkpoint under `key` (the file's absolute path), and its chunks' terms.
 */
export function keepPrepared(cache: PrepareCache, key: string, prepared: PreparedText): void {
  remember(cache, key, prepared, true)
}

/**
 * The rows of one file. `cache.files` is looked up by `key` (the file's absolute path): a
 * checkpoint of the same file is only a shortcut, used when the text still starts with what
 * it was taken from, so the rows are the same as without it.
 */
export async function prepareFile(
  input: FileInput,
  chunking: ChunkOptions,
  slicer: Yielder,
  cache?: { prepare: PrepareCache; key: string },
): Promise<PreparedFile> {
  const previous = cache?.prepare.files.get(cache.key) ?? null
  const prepared = await prepareText(input, chunking, slicer, previous, cache?.prepare.terms)
  if (cache) remember(cache.prepare, cache.key, prepared, false)
  return prepared.file
}
