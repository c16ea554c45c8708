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
import type { FileChanges } from '../port.js'
import type { Client, Tables } from './database.js'
import type { ImpactLists, TermState, WrittenChunk } from './impact-lists.js'
import type { ChunkTerms } from './write-terms.js'
import { boolArray, intArray, textArray } from './array-literal.js'
import { createWriteTerms, type WriteTerms } from './write-terms.js'
import type { EntryStatus, Origin } from '../../domain/entry-meta.js'

type StoredChunk = {
  id: number
  start_line: number
  end_line: number
  content_hash: string
  terms: string[]
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
 * What one apply changes in the index's counts: each term's document frequency (`terms`),
 * rows, tokens, and the chunks it inserted (for the impact lists).
 */
type Tally = { terms: WriteTerms; rows: number; tokens: number; written: WrittenChunk[] }

/**
 * The columns of chunk rows derived from their terms, for one INSERT: each row's GIN keys
 * (`<index id>:<term>`, space-separated) one text each, and the counts, hashes and checks of
 * all rows as flat integer arrays the statement slices at `offsets` (a row's counts are
 * `{body,heading,...}` in its keys' order); `unique` false: the row keeps no hashes and its
 * terms are found by a scan (read-sql.ts termSlot).
 */
function termColumns(indexId: number, terms: WriteTerms, rows: readonly ChunkTerms[]) {
  const prefix = `${indexId}:`
  const keys: string[] = []
  const counts: number[] = []
  const hashes: number[] = []
  const checks: number[] = []
  const offsets: number[] = []
  const sizes: number[] = []
  for (const row of rows) {
    offsets.push(hashes.length)
    sizes.push(row.slots.length)
    let key = ''
    for (let i = 0; i < row.slots.length; i++) {
      const s = row.slots[i] as number
      key += (i > 0 ? ' ' : '') + prefix + (terms.terms[s] as string)
      counts.push(row.body[i] as number, row.heading[i] as number)
      hashes.push(terms.hashes[s] as number)
      checks.push(terms.checks[s] as number)
    }
    keys.push(key)
  }
  return { keys, counts, hashes, checks, offsets, sizes, unique: rows.map((r) => r.unique) }
}

const termOfKey = (key: string): string => key.slice(key.indexOf(':') + 1)

export function createIndexWrites(t: Tables, lists: ImpactLists) {
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
   * Adds each term's change in document frequency (`terms.deltas`: every term the write
   * touched, in term order so concurrent writes lock them in one order); drops terms no chunk
   * holds any more. Returns the states of the terms that have an impact list or are frequent
   * enough for one.
   */
  async function countTerms(c: Client, indexId: number, terms: WriteTerms): Promise<TermState[]> {
    const slots = terms.terms
      .map((_, s) => s)
      .sort((a, b) => ((terms.terms[a] as string) < (terms.terms[b] as string) ? -1 : 1))
    if (slots.length === 0) return []
    const { rows: states } = await c.query<TermState>(
      `WITH counted AS (
         INSERT INTO ${t.terms} AS t (index_id, term, df)
         SELECT $1, u.term, u.d FROM unnest($2::text[], $3::int[]) AS u(term, d)
         ON CONFLICT (index_id, term) DO UPDATE SET df = t.df + excluded.df
         RETURNING t.term, t.df, t.floor, t.listed, t.reference)
       SELECT * FROM counted WHERE floor IS NOT NULL OR df >= $4`,
      [
        indexId,
        textArray(slots.map((s) => terms.terms[s] as string)),
        intArray(slots.map((s) => terms.deltas[s] as number)),
        lists.minDocFreq,
      ],
    )
    const dropped = slots.filter((s) => (terms.deltas[s] as number) < 0).map((s) => terms.terms[s] as string)
    if (dropped.length > 0) {
      await c.query(`DELETE FROM ${t.terms} WHERE index_id = $1 AND term = ANY($2::text[]) AND df <= 0`, [
        indexId,
        textArray(dropped),
      ])
    }
    return states
  }

  /** Writes a tally into the index's term and corpus counts. */
  async function settle(c: Client, indexId: number, tally: Tally): Promise<void> {
    await lists.update(c, indexId, await countTerms(c, indexId, tally.terms), tally.terms, tally.written)
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
      tally.terms.remove(s.terms.map(termOfKey))
      tally.rows--
      tally.tokens -= s.token_count
    }
  }

  /** Inserts chunks (and the vectors they carry, when the index stores `dims`-sized ones). */
  async function insertChunks(
    c: Client,
    indexId: number,
    file: FileRecord,
    chunks: readonly ChunkInput[],
    dims: number | null,
    tally: Tally,
  ): Promise<void> {
    if (chunks.length === 0) return
    const counted = chunks.map((chunk) => {
      tally.rows++
      tally.tokens += chunk.tokenCount
      return tally.terms.insert(chunk.bodyTerms, chunk.headingTerms)
    })
    const cols = termColumns(indexId, tally.terms, counted)
    const withVector = (chunk: ChunkInput) => dims !== null && chunk.vector?.length === dims
    const { rows } = await c.query<{ id: number; start_line: number; end_line: number; content_hash: string }>(
      `INSERT INTO ${t.chunks} (index_id, path, source, start_line, end_line, text, headings, content_hash,
         body_terms, heading_terms, token_count, terms, counts, hashes, checks, has_vector, dated_ms,
         entry_status, entry_observed, entry_key, entry_origin, entry_hash)
       SELECT $1, $2, $3, u.s, u.e, u.tx, u.h, u.ch, u.bt, u.ht, u.tc, string_to_array(u.tm, ' '),
         ($13::int4[])[2 * u.o + 1 : 2 * (u.o + u.n)],
         CASE WHEN u.uq THEN ($14::int4[])[u.o + 1 : u.o + u.n] END,
         CASE WHEN u.uq THEN ($15::int4[])[u.o + 1 : u.o + u.n] END,
         u.hv, u.dm, u.es, u.eo, u.ek, u.eg, u.eh
       FROM unnest($4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[],
         $12::text[], $16::int[], $17::int[], $18::bool[], $19::bool[], $20::bigint[], $21::text[], $22::text[],
         $23::text[], $24::text[], $25::text[])
         AS u(s, e, tx, h, ch, bt, ht, tc, tm, o, n, uq, hv, dm, es, eo, ek, eg, eh)
       RETURNING id, start_line, end_line, content_hash`,
      [
        indexId,
        file.path,
        file.source,
        intArray(chunks.map((x) => x.startLine)),
        intArray(chunks.map((x) => x.endLine)),
        textArray(chunks.map((x) => x.text)),
        textArray(chunks.map((x) => x.headings)),
        textArray(chunks.map((x) => x.contentHash)),
        textArray(chunks.map((x) => x.bodyTerms)),
        textArray(chunks.map((x) => x.headingTerms)),
        intArray(chunks.map((x) => x.tokenCount)),
        textArray(cols.keys),
        intArray(cols.counts),
        intArray(cols.hashes),
        intArray(cols.checks),
        intArray(cols.offsets),
        intArray(cols.sizes),
        boolArray(cols.unique),
        boolArray(chunks.map(withVector)),
        intArray(chunks.map((x) => x.datedMs)),
        textArray(chunks.map((x) => x.entry?.status ?? null)),
        textArray(chunks.map((x) => x.entry?.observed ?? null)),
        textArray(chunks.map((x) => x.entry?.key ?? null)),
        textArray(chunks.map((x) => x.entry?.origin ?? null)),
        textArray(chunks.map((x) => x.entryHash ?? null)),
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
      chunks.map((x) => [x, ids.get(`${x.startLine}:${x.endLine}:${x.contentHash}`)?.pop() as number]),
    )
    chunks.forEach((x, i) => {
      tally.written.push({ id: idOf.get(x) as number, terms: counted[i] as ChunkTerms, tokens: x.tokenCount })
    })
    if (dims === null) return
    const vectors = chunks.filter((x) => withVector(x) && !isZeroVector(x.vector as Float32Array))
    if (vectors.length > 0) {
      await c.query(
        `INSERT INTO ${t.vectors(dims)} (chunk_id, index_id, path, source, embedding)
         SELECT u.id, $1, $2, $3, u.v::vector FROM unnest($4::bigint[], $5::text[]) AS u(id, v)`,
        [
          indexId,
          file.path,
          file.source,
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
        `SELECT id, start_line, end_line, content_hash, terms, token_count,
           entry_status, entry_observed, entry_key, entry_origin, entry_hash FROM ${t.chunks}
         WHERE index_id = $1 AND path = $2`,
        [indexId, path],
      )
    ).rows

  /**
   * Writes `changes` into the index `indexId`; `dims`: the size of the vectors it stores, if
   * any. The term and corpus counts are settled once for all the files; returns the chunk
   * rows inserted.
   */
  async function apply(c: Client, indexId: number, changes: FileChanges, dims: number | null): Promise<number> {
    const tally: Tally = { terms: createWriteTerms(), rows: 0, tokens: 0, written: [] }
    let inserted = 0
    for (const { record, chunks } of changes.replace ?? []) {
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
      await insertChunks(c, indexId, record, added, dims, tally)
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
    await settle(c, indexId, tally)
    return inserted
  }

  return { apply }
}
