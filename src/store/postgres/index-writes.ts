/**
 * Writes of one index inside a caller's transaction (which holds the space's write lock):
 * files replaced, touched and removed, with their chunks, term counts and corpus size kept
 * in step. A change from a read older than what the index holds for the file is dropped,
 * and a deletion is remembered so an older read cannot bring the file back. Unchanged
 * chunks (same lines, same content hash) keep their rows and vectors.
 */
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import { isZeroVector } from '../../domain/vectors.js'
import { diffChunks } from '../chunk-diff.js'
import type { FileChanges, FileRows } from '../port.js'
import type { Client, Tables } from './database.js'
import type { ImpactLists, TermState, WrittenChunk } from './impact-lists.js'
import type { ListResume } from './list-resume.js'
import { boolArray, int4Binary, intArray, textArray, textBinary } from './array-literal.js'
import { chunkColumns, type ChunkColumns } from './chunk-columns.js'
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

/** A file's chunks encoded ahead (stage): their terms, and the INSERT's parameters for all of them. */
type StagedFile = { rows: ChunkTerms[]; columns: ChunkColumns }
/** A batch's files encoded ahead, with the terms their slots are of. */
type Staged = { terms: WriteTerms; files: Map<FileRows, StagedFile> }

/**
 * Longest stretch of encoding between yields, in ms. A batch of 1,000 chunks (a quiet sync's,
 * PG_QUIET_BATCH_CHUNKS) takes about 100 ms to encode; in one piece it held the event loop
 * that long against a search arriving.
 */
const ENCODE_SLICE_MS = 5

/**
 * Counts the terms of each chunk `changes` replaces and builds their INSERT's parameters, a
 * file at a time, yielding between files once a slice is used up.
 */
async function encode(changes: FileChanges): Promise<Staged> {
  const slicer = createSlicer(ENCODE_SLICE_MS)
  const terms = createWriteTerms()
  const files = new Map<FileRows, StagedFile>()
  for (const file of changes.replace ?? []) {
    await slicer.maybeYield()
    const rows = file.chunks.map((x) => terms.count(x.bodyTerms, x.headingTerms))
    files.set(file, { rows, columns: chunkColumns(file.chunks, rows, terms) })
  }
  return { terms, files }
}

/**
 * A chunk INSERT of the rows chunk-columns.ts encodes ($4 to $22), with the index ($1), the
 * file's path and source ($2, $3) and whether each row has a vector ($23). A row's keys and
 * counts are its slices of the flat $22 and $12; a row two of whose terms share a termHash
 * (about one in 300,000) has its keys, and their counts with them, sorted here, where its
 * index's id has made the keys, so a binary search finds each.
 */
const insertSql = (t: Tables) =>
  `INSERT INTO ${t.chunks} (index_id, path, source, start_line, end_line, text, headings, content_hash,
     body_terms, heading_terms, token_count, keys, counts, has_vector, dated_ms,
     entry_status, entry_observed, entry_key, entry_origin, entry_hash)
   SELECT $1, $2, $3, u.s, u.e, u.tx, u.h, u.ch, u.bt, u.ht, u.tc,
     CASE WHEN u.uq THEN ($22::int8[])[u.o + 1 : u.o + u.n]
       ELSE ARRAY(SELECT k FROM unnest(($22::int8[])[u.o + 1 : u.o + u.n]) AS k ORDER BY k) END,
     CASE WHEN u.uq THEN ($12::int4[])[2 * u.o + 1 : 2 * (u.o + u.n)]
       ELSE ARRAY(SELECT ($12::int4[])[2 * (u.o + q.i) - 1 + w.j]
         FROM unnest(($22::int8[])[u.o + 1 : u.o + u.n]) WITH ORDINALITY AS q(k, i) CROSS JOIN (VALUES (0), (1)) AS w(j)
         ORDER BY q.k, w.j) END,
     u.hv, u.dm, u.es, u.eo, u.ek, u.eg, u.eh
   FROM unnest($4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[],
     $13::int[], $14::int[], $15::bool[], $23::bool[], $16::bigint[], $17::text[], $18::text[], $19::text[],
     $20::text[], $21::text[])
     AS u(s, e, tx, h, ch, bt, ht, tc, o, n, uq, hv, dm, es, eo, ek, eg, eh)
   RETURNING id, start_line, end_line, content_hash`

export function createIndexWrites(t: Tables, lists: ImpactLists, resume: ListResume) {
  /** The newest read of `path` the index has applied: its row, or the deletion that removed it. */
  async function newestRead(c: Client, indexId: number, path: string): Promise<number> {
    const { rows } = await c.query<{ m: number | null }>(
      `SELECT GREATEST((SELECT read_seq FROM ${t.files} WHERE index_id = $1 AND path = $2),
         (SELECT read_seq FROM ${t.deleted} WHERE index_id = $1 AND path = $2)) AS m`,
      [indexId, path],
    )
    return rows[0]?.m ?? -1
  }

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
   * Inserts `added`, the chunks of `file` that need rows (and the vectors they carry, when the
   * index stores `dims`-sized ones), from the file's encoding: as it is when every chunk needs
   * a row, else encoded again for those that do.
   */
  async function insertChunks(
    c: Client,
    indexId: number,
    file: FileRows,
    added: readonly ChunkInput[],
    dims: number | null,
    tally: Tally,
    encoded: StagedFile,
  ): Promise<void> {
    if (added.length === 0) return
    const all = added.length === file.chunks.length
    const rowOf = all ? null : new Map(file.chunks.map((x, i) => [x, encoded.rows[i] as ChunkTerms]))
    const counted = rowOf ? added.map((x) => rowOf.get(x) as ChunkTerms) : encoded.rows
    const columns = rowOf ? chunkColumns(added, counted, tally.terms) : encoded.columns
    for (let i = 0; i < added.length; i++) {
      tally.deltas.inserted(counted[i] as ChunkTerms)
      tally.rows++
      tally.tokens += (added[i] as ChunkInput).tokenCount
    }
    const withVector = (chunk: ChunkInput) => dims !== null && chunk.vector?.length === dims
    const { rows } = await c.query<{ id: number; start_line: number; end_line: number; content_hash: string }>(
      insertSql(t),
      [
        indexId,
        file.record.path,
        file.record.source,
        ...columns.params,
        columns.keys(indexId),
        boolArray(added.map(withVector)),
      ],
    )
    // Returned ids are tied to chunks by lines and content hash, not by start line: the pieces
    // of a long line share it (a duplicate chunk_id failed the whole write). Rows equal in all
    // three hold the same text under the same headings, so either takes either's vector and counts.
    const ids = new Map<string, number[]>()
    for (const r of rows) {
      const key = `${r.start_line}:${r.end_line}:${r.content_hash}`
      const same = ids.get(key)
      if (same) same.push(r.id)
      else ids.set(key, [r.id])
    }
    const idOf = new Map(
      added.map((x) => [x, ids.get(`${x.startLine}:${x.endLine}:${x.contentHash}`)?.pop() as number]),
    )
    added.forEach((x, i) => {
      tally.written.push({ id: idOf.get(x) as number, terms: counted[i] as ChunkTerms, tokens: x.tokenCount })
    })
    if (dims === null) return
    const vectors = added.filter((x) => withVector(x) && !isZeroVector(x.vector as Float32Array))
    if (vectors.length > 0) {
      await c.query(
        `INSERT INTO ${t.vectors(dims)} (chunk_id, index_id, path, source, embedding)
         SELECT u.id, $1, $2, $3, u.v::vector FROM unnest($4::bigint[], $5::text[]) AS u(id, v)`,
        [
          indexId,
          file.record.path,
          file.record.source,
          vectors.map((x) => idOf.get(x)),
          vectors.map((x) => vectorLiteral(x.vector as Float32Array)),
        ],
      )
    }
  }

  async function upsertFile(c: Client, indexId: number, file: FileRecord): Promise<void> {
    await c.query(`DELETE FROM ${t.deleted} WHERE index_id = $1 AND path = $2`, [indexId, file.path])
    await c.query(
      `INSERT INTO ${t.files} (index_id, path, source, sha256, size_bytes, mtime_ms, line_count, chunk_count,
         indexed_at_ms, read_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (index_id, path) DO UPDATE SET source = excluded.source, sha256 = excluded.sha256,
         size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms, line_count = excluded.line_count,
         chunk_count = excluded.chunk_count, indexed_at_ms = excluded.indexed_at_ms, read_seq = excluded.read_seq`,
      [
        indexId,
        file.path,
        file.source,
        file.sha256,
        file.sizeBytes,
        file.mtimeMs,
        file.lineCount,
        file.chunkCount,
        file.indexedAtMs,
        file.readSeq,
      ],
    )
  }

  const storedChunks = async (c: Client, indexId: number, path: string) =>
    (
      await c.query<StoredChunk>(
        `SELECT id, start_line, end_line, content_hash, body_terms, heading_terms, token_count,
           entry_status, entry_observed, entry_key, entry_origin, entry_hash FROM ${t.chunks}
         WHERE index_id = $1 AND path = $2`,
        [indexId, path],
      )
    ).rows

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
   * Writes `changes` into the index `indexId`; `dims`: the size of the vectors it stores, if
   * any; `pause`: a full pass writes them (settle). The term and corpus counts are settled
   * once for all the files; returns the chunk rows inserted.
   */
  async function apply(
    c: Client,
    indexId: number,
    changes: FileChanges,
    dims: number | null,
    pause: boolean,
  ): Promise<number> {
    const { terms, files } = await stage(changes)
    const tally: Tally = { terms, deltas: createTermDeltas(terms), rows: 0, tokens: 0, written: [] }
    let inserted = 0
    for (const file of changes.replace ?? []) {
      const { record, chunks } = file
      if ((await newestRead(c, indexId, record.path)) > record.readSeq) continue
      const { added, removed } = diffChunks(
        await storedChunks(c, indexId, record.path),
        (s) => ({
          startLine: s.start_line,
          endLine: s.end_line,
          contentHash: s.content_hash,
          entry:
            s.entry_status === null
              ? null
              : { status: s.entry_status, observed: s.entry_observed, key: s.entry_key, origin: s.entry_origin },
          entryHash: s.entry_hash,
        }),
        chunks,
      )
      await removeChunks(c, removed, tally)
      await insertChunks(c, indexId, file, added, dims, tally, files.get(file) as StagedFile)
      inserted += added.length
      await upsertFile(c, indexId, record)
    }
    for (const file of changes.touch ?? []) {
      if ((await newestRead(c, indexId, file.path)) > file.readSeq) continue
      await c.query(
        `UPDATE ${t.files} SET size_bytes = $3, mtime_ms = $4, indexed_at_ms = $5, read_seq = $6
         WHERE index_id = $1 AND path = $2 AND sha256 = $7`,
        [indexId, file.path, file.sizeBytes, file.mtimeMs, file.indexedAtMs, file.readSeq, file.sha256],
      )
    }
    for (const { path, readSeq } of changes.remove ?? []) {
      if ((await newestRead(c, indexId, path)) > readSeq) continue
      await c.query(
        `INSERT INTO ${t.deleted} (index_id, path, read_seq) VALUES ($1, $2, $3)
         ON CONFLICT (index_id, path) DO UPDATE SET read_seq = excluded.read_seq`,
        [indexId, path, readSeq],
      )
      await removeChunks(c, await storedChunks(c, indexId, path), tally)
      await c.query(`DELETE FROM ${t.files} WHERE index_id = $1 AND path = $2`, [indexId, path])
    }
    await settle(c, indexId, tally, pause)
    return inserted
  }

  return { stage, apply }
}
