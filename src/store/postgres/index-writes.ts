/**
 * Writes of one index inside a caller's transaction (which holds the space's write lock):
 * files replaced, touched and removed, with their chunks, term counts and corpus size kept
 * in step. A change from a read older than what the index holds for the file is dropped,
 * and a deletion is remembered so an older read cannot bring the file back. Unchanged
 * chunks (same lines, same content hash) keep their rows and vectors.
 */
import type { ChunkInput } from '../../domain/chunks.js'
import { isZeroVector } from '../../domain/vectors.js'
import { diffChunks } from '../chunk-diff.js'
import type { FileChanges, FileRows } from '../port.js'
import type { Client, Tables } from './database.js'
import type { ImpactLists, TermState, WrittenChunk } from './impact-lists.js'
import type { ListResume } from './list-resume.js'
import { boolArray, int4Binary, intArray, textArray, textBinary } from './array-literal.js'
import { changeRounds, type Round } from './change-rounds.js'
import { createFileRecords } from './file-records.js'
import { chunkColumns, type ChunkColumns, type PlacedChunk } from './chunk-columns.js'
import { createTermDeltas, createWriteTerms, type ChunkTerms, type TermDeltas, type WriteTerms } from './write-terms.js'
import type { EntryStatus, Origin } from '../../domain/entry-meta.js'
import { createSlicer } from '../../shared/async.js'

type StoredChunk = {
  id: number
  start_line: number
  end_line: number
  content_hash: string
  body_terms: string
  heading_terms: string
  token_count: number
  entry_status: EntryStatus | null
  entry_observed: string | null
  entry_key: string | null
  entry_origin: Origin | null
  entry_hash: string | null
}

/** A vector as pgvector's text input. */
export const vectorLiteral = (v: Float32Array): string => `[${Array.from(v).join(',')}]`

/**
 * What one apply changes in the index's counts: each term's document frequency (`deltas`, by
 * slot of `terms`), rows, tokens, and the chunks it inserted (for the impact lists).
 */
type Tally = { terms: WriteTerms; deltas: TermDeltas; rows: number; tokens: number; written: WrittenChunk[] }

/**
 * A batch's files encoded ahead (stage): each file's chunks' terms (by slot of `terms`), and
 * the INSERT's parameters for all the chunks of all of them, in order.
 */
type Staged = { terms: WriteTerms; rows: Map<FileRows, ChunkTerms[]>; columns: ChunkColumns; chunks: number }

/**
 * Longest stretch of encoding between yields, in ms. A batch of 1,000 chunks (a quiet sync's,
 * PG_QUIET_BATCH_CHUNKS) takes about 100 ms to encode; in one piece it held the event loop
 * that long against a search arriving.
 */
const ENCODE_SLICE_MS = 5

/** Each chunk of `files` with its file and its terms (`rows`: each file's, in chunk order). */
const placedChunks = (files: readonly FileRows[], rows: Map<FileRows, ChunkTerms[]>): PlacedChunk[] =>
  files.flatMap((f) => {
    const terms = rows.get(f) as ChunkTerms[]
    return f.chunks.map((chunk, i) => ({ chunk, file: f.record, terms: terms[i] as ChunkTerms }))
  })

/**
 * Counts the terms of each chunk `changes` replaces, a file at a time, yielding between files
 * once a slice is used up, then sorts the terms and builds the INSERT's parameters.
 */
async function encode(changes: FileChanges): Promise<Staged> {
  const slicer = createSlicer(ENCODE_SLICE_MS)
  const terms = createWriteTerms()
  const rows = new Map<FileRows, ChunkTerms[]>()
  for (const file of changes.replace ?? []) {
    await slicer.maybeYield()
    rows.set(
      file,
      file.chunks.map((x) => terms.count(x.bodyTerms, x.headingTerms)),
    )
  }
  await slicer.maybeYield()
  // Sorted here, ahead of the transaction, for the term upsert (TermDeltas.byTerm).
  terms.ordered()
  await slicer.maybeYield()
  const placed = placedChunks(changes.replace ?? [], rows)
  return { terms, rows, columns: chunkColumns(placed, terms), chunks: placed.length }
}

/**
 * A chunk INSERT of the rows chunk-columns.ts encodes ($2 to $22), with the index ($1) and
 * whether each row has a vector ($23). A row's keys and counts are its slices of the flat $22
 * and $12; a row two of whose terms share a termHash (about one in 300,000) has its keys, and
 * their counts with them, sorted here, where its index's id has made the keys, so a binary
 * search finds each.
 */
const insertSql = (t: Tables) =>
  `INSERT INTO ${t.chunks} (index_id, path, source, start_line, end_line, text, headings, content_hash,
     body_terms, heading_terms, token_count, keys, counts, has_vector, dated_ms,
     entry_status, entry_observed, entry_key, entry_origin, entry_hash)
   SELECT $1, u.p, u.so, u.s, u.e, u.tx, u.h, u.ch, u.bt, u.ht, u.tc,
     CASE WHEN u.uq THEN ($22::int8[])[u.o + 1 : u.o + u.n]
       ELSE ARRAY(SELECT k FROM unnest(($22::int8[])[u.o + 1 : u.o + u.n]) AS k ORDER BY k) END,
     CASE WHEN u.uq THEN ($12::int4[])[2 * u.o + 1 : 2 * (u.o + u.n)]
       ELSE ARRAY(SELECT ($12::int4[])[2 * (u.o + q.i) - 1 + w.j]
         FROM unnest(($22::int8[])[u.o + 1 : u.o + u.n]) WITH ORDINALITY AS q(k, i) CROSS JOIN (VALUES (0), (1)) AS w(j)
         ORDER BY q.k, w.j) END,
     u.hv, u.dm, u.es, u.eo, u.ek, u.eg, u.eh
   FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[],
     $10::text[], $11::int[], $13::int[], $14::int[], $15::bool[], $23::bool[], $16::bigint[], $17::text[],
     $18::text[], $19::text[], $20::text[], $21::text[])
     AS u(p, so, s, e, tx, h, ch, bt, ht, tc, o, n, uq, hv, dm, es, eo, ek, eg, eh)
   RETURNING id, path, start_line, end_line, content_hash`

/** What ties a returned row to its chunk: its file, lines and content hash. */
const rowKey = (path: string, startLine: number, endLine: number, contentHash: string) =>
  `${path}\0${startLine}:${endLine}:${contentHash}`

/** A stored row's identity, for diffChunks. */
const storedIdentity = (s: StoredChunk) => ({
  startLine: s.start_line,
  endLine: s.end_line,
  contentHash: s.content_hash,
  entry:
    s.entry_status === null
      ? null
      : { status: s.entry_status, observed: s.entry_observed, key: s.entry_key, origin: s.entry_origin },
  entryHash: s.entry_hash,
})

export function createIndexWrites(t: Tables, lists: ImpactLists, resume: ListResume) {
  const records = createFileRecords(t)

  /**
   * Adds each term's change in document frequency (`tally.deltas`: every term the write
   * touched, in term order so concurrent writes lock them in one order); drops terms no chunk
   * holds any more. Returns the states of the terms that have an impact list or are frequent
   * enough for one.
   */
  async function countTerms(c: Client, indexId: number, tally: Tally): Promise<TermState[]> {
    const { terms, deltas } = tally.deltas.byTerm()
    if (terms.length === 0) return []
    const { rows: states } = await c.query<TermState>(
      `WITH counted AS (
         INSERT INTO ${t.terms} AS t (index_id, term, df)
         SELECT $1, u.term, u.d FROM unnest($2::text[], $3::int[]) AS u(term, d)
         ON CONFLICT (index_id, term) DO UPDATE SET df = t.df + excluded.df
         RETURNING t.term, t.df, t.floor, t.listed, t.reference)
       SELECT * FROM counted WHERE floor IS NOT NULL OR df >= $4`,
      [indexId, textBinary(terms), int4Binary(deltas), lists.minDocFreq],
    )
    const dropped = terms.filter((_, i) => (deltas[i] as number) < 0)
    if (dropped.length > 0) {
      await c.query(`DELETE FROM ${t.terms} WHERE index_id = $1 AND term = ANY($2::text[]) AND df <= 0`, [
        indexId,
        textArray(dropped),
      ])
    }
    return states
  }

  /**
   * Writes a tally into the index's term and corpus counts, and its impact lists unless they
   * are paused. `pause`: the write is part of a pass that compacts the index when it ends,
   * which pauses the lists of an index that was empty before it (list-resume.ts).
   */
  async function settle(c: Client, indexId: number, tally: Tally, pause: boolean): Promise<void> {
    const states = await countTerms(c, indexId, tally)
    // A pass's first write into an empty index has no list to keep yet, and pauses them.
    if (states.length > 0 || pause) {
      if (!(await resume.paused(c, indexId, pause))) await lists.update(c, indexId, states, tally.terms, tally.written)
    }
    if (tally.rows === 0 && tally.tokens === 0) return
    await c.query(`UPDATE ${t.indexes} SET chunk_rows = chunk_rows + $2, token_sum = token_sum + $3 WHERE id = $1`, [
      indexId,
      tally.rows,
      tally.tokens,
    ])
  }

  /** Deletes chunk rows (their vectors go with them) and counts their terms out. */
  async function removeChunks(c: Client, stored: readonly StoredChunk[], tally: Tally): Promise<void> {
    if (stored.length === 0) return
    const ids = stored.map((s) => s.id)
    await lists.remove(c, ids)
    await c.query(`DELETE FROM ${t.chunks} WHERE id = ANY($1::bigint[])`, [intArray(ids)])
    for (const s of stored) {
      tally.deltas.removed(tally.terms.count(s.body_terms, s.heading_terms))
      tally.rows--
      tally.tokens -= s.token_count
    }
  }

  /**
   * Inserts `added`, the chunks that need rows (and the vectors they carry, when the index
   * stores `dims`-sized ones), in one statement for all their files: from `columns`, the
   * batch's encoding, when they are all its chunks, else encoded again for those that are.
   */
  async function insertChunks(
    c: Client,
    indexId: number,
    added: readonly PlacedChunk[],
    dims: number | null,
    tally: Tally,
    columns: ChunkColumns | null,
  ): Promise<void> {
    if (added.length === 0) return
    const encoded = columns ?? chunkColumns(added, tally.terms)
    for (const { chunk, terms } of added) {
      tally.deltas.inserted(terms)
      tally.rows++
      tally.tokens += chunk.tokenCount
    }
    const withVector = (chunk: ChunkInput) => dims !== null && chunk.vector?.length === dims
    const { rows } = await c.query<{
      id: number
      path: string
      start_line: number
      end_line: number
      content_hash: string
    }>(insertSql(t), [
      indexId,
      ...encoded.params,
      encoded.keys(indexId),
      boolArray(added.map((x) => withVector(x.chunk))),
    ])
    // Returned ids are tied to chunks by file, lines and content hash, not by start line: the
    // pieces of a long line share it (a duplicate chunk_id failed the whole write). Rows equal
    // in all four hold the same text under the same headings, so either takes either's vector
    // and counts.
    const ids = new Map<string, number[]>()
    for (const r of rows) {
      const key = rowKey(r.path, r.start_line, r.end_line, r.content_hash)
      const same = ids.get(key)
      if (same) same.push(r.id)
      else ids.set(key, [r.id])
    }
    const idOf = added.map(
      ({ chunk: x, file }) => ids.get(rowKey(file.path, x.startLine, x.endLine, x.contentHash))?.pop() as number,
    )
    added.forEach(({ chunk, terms }, i) => {
      tally.written.push({ id: idOf[i] as number, terms, tokens: chunk.tokenCount })
    })
    if (dims === null) return
    const vectors = added.flatMap((x, i) =>
      withVector(x.chunk) && !isZeroVector(x.chunk.vector as Float32Array) ? [{ ...x, id: idOf[i] as number }] : [],
    )
    if (vectors.length > 0) {
      await c.query(
        `INSERT INTO ${t.vectors(dims)} (chunk_id, index_id, path, source, embedding)
         SELECT u.id, $1, u.p, u.so, u.v::vector FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, p, so, v)`,
        [
          indexId,
          vectors.map((x) => x.id),
          vectors.map((x) => x.file.path),
          vectors.map((x) => x.file.source),
          vectors.map((x) => vectorLiteral(x.chunk.vector as Float32Array)),
        ],
      )
    }
  }

  /** The stored rows of each of `paths`. */
  async function storedChunks(
    c: Client,
    indexId: number,
    paths: readonly string[],
  ): Promise<Map<string, StoredChunk[]>> {
    const byPath = new Map<string, StoredChunk[]>()
    if (paths.length === 0) return byPath
    const { rows } = await c.query<StoredChunk & { path: string }>(
      `SELECT id, path, start_line, end_line, content_hash, body_terms, heading_terms, token_count,
         entry_status, entry_observed, entry_key, entry_origin, entry_hash FROM ${t.chunks}
       WHERE index_id = $1 AND path = ANY($2::text[])`,
      [indexId, textBinary(paths)],
    )
    for (const r of rows) {
      const same = byPath.get(r.path)
      if (same) same.push(r)
      else byPath.set(r.path, [r])
    }
    return byPath
  }

  const staged = new WeakMap<FileChanges, Promise<Staged>>()

  /**
   * The rows of `changes` encoded, kept for apply: no index's id or rows are needed, so a sync
   * pass encodes its next batch while the database writes the last one (SpaceWriter.stage),
   * and every index the batch goes to takes the same encoding.
   */
  function stage(changes: FileChanges): Promise<Staged> {
    let done = staged.get(changes)
    if (!done) {
      done = encode(changes)
      // A stage nobody awaits yet: apply, which awaits it, reports its failure.
      done.catch(() => undefined)
      staged.set(changes, done)
    }
    return done
  }

  /**
   * Writes one round of a change (change-rounds.ts: no file twice) into the index, a statement
   * per step for all its files, which a batch of files took a statement per file and step
   * before (BENCHMARKS.md). A file whose read is older than the index's newest of it is left
   * out. Returns the chunk rows inserted.
   */
  async function applyRound(
    c: Client,
    indexId: number,
    round: Round,
    encoded: Staged,
    dims: number | null,
    tally: Tally,
  ): Promise<number> {
    const paths = [
      ...round.replace.map((f) => f.record.path),
      ...round.touch.map((f) => f.path),
      ...round.remove.map((r) => r.path),
    ]
    const newest = await records.newestReads(c, indexId, paths)
    const current = (path: string, readSeq: number) => (newest.get(path) ?? -1) <= readSeq
    const replace = round.replace.filter((f) => current(f.record.path, f.record.readSeq))
    const touch = round.touch.filter((f) => current(f.path, f.readSeq))
    const remove = round.remove.filter((r) => current(r.path, r.readSeq))
    const stored = await storedChunks(c, indexId, [...replace.map((f) => f.record.path), ...remove.map((r) => r.path)])
    const removed = remove.flatMap((r) => stored.get(r.path) ?? [])
    const added: PlacedChunk[] = []
    for (const file of replace) {
      const diff = diffChunks(stored.get(file.record.path) ?? [], storedIdentity, file.chunks)
      removed.push(...diff.removed)
      const terms = encoded.rows.get(file) as ChunkTerms[]
      const termsOf = new Map(file.chunks.map((x, i) => [x, terms[i] as ChunkTerms]))
      for (const chunk of diff.added) added.push({ chunk, file: file.record, terms: termsOf.get(chunk) as ChunkTerms })
    }
    await removeChunks(c, removed, tally)
    // Every chunk of the batch, in its order: the staged encoding is the INSERT's as it is.
    await insertChunks(c, indexId, added, dims, tally, added.length === encoded.chunks ? encoded.columns : null)
    await records.upsert(
      c,
      indexId,
      replace.map((f) => f.record),
    )
    await records.touch(c, indexId, touch)
    await records.remove(c, indexId, remove)
    return added.length
  }

  /**
   * Writes `changes` into the index `indexId`, round by round (change-rounds.ts); `dims`: the
   * size of the vectors it stores, if any; `pause`: a full pass writes them (settle). The term
   * and corpus counts are settled once for all the files; returns the chunk rows inserted.
   */
  async function apply(
    c: Client,
    indexId: number,
    changes: FileChanges,
    dims: number | null,
    pause: boolean,
  ): Promise<number> {
    const encoded = await stage(changes)
    const tally: Tally = {
      terms: encoded.terms,
      deltas: createTermDeltas(encoded.terms),
      rows: 0,
      tokens: 0,
      written: [],
    }
    let inserted = 0
    for (const round of changeRounds(changes)) inserted += await applyRound(c, indexId, round, encoded, dims, tally)
    await settle(c, indexId, tally, pause)
    return inserted
  }

  return { stage, apply }
}
