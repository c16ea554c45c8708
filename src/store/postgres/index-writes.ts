/**
 * Writes of one index inside a caller's transaction (which holds the space's write lock):
 * files replaced, touched and removed, with their chunks, term counts and corpus size kept
 * in step. A change from a read older than what the index holds for the file is dropped,
 * and a deletion is remembered so an older read cannot bring the file back. Unchanged
 * chunks (same lines, same content hash) keep their rows and vectors.
 */
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import { isZeroVector } from '../../domain/vectors.js'
import { columnCounts } from '../../text/term-count.js'
import { diffChunks } from '../chunk-diff.js'
import type { FileChanges } from '../port.js'
import type { Client, Tables } from './database.js'
import type { ImpactLists, TermState, WrittenChunk } from './impact-lists.js'
import { termCheck, termHash } from './term-hash.js'
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

/** The index-scoped term keys the GIN index holds: `<index id>:<term>`. */
export const termKey = (indexId: number, term: string): string => `${indexId}:${term}`

/**
 * A chunk's distinct terms as the text of its GIN keys (`<index id>:<term>`, space-separated),
 * its counts as the text of `counts` (`{body,heading,...}` in the keys' order) and the
 * terms' hashes as the texts of `hashes` and `checks` (term-hash.ts), in the order of the
 * first hashes (ties by term), so a search finds a term by binary search (read-sql.ts
 * termSlot); both null when two of the terms share a first hash, and the row's terms are
 * then found by a scan. Built in one pass by concatenation: arrays of parts joined were most
 * of a cold index's CPU time in this process.
 */
function encodeCounts(
  indexId: number,
  counts: Map<string, [number, number]>,
): { keys: string; counts: string; hashes: string | null; checks: string | null } {
  const hashed = [...counts.keys()].map((term) => ({ term, hash: termHash(term) }))
  hashed.sort((a, b) => a.hash - b.hash || (a.term < b.term ? -1 : 1))
  let keys = ''
  let pairs = ''
  let hashes = ''
  let checks = ''
  let unique = true
  for (let i = 0; i < hashed.length; i++) {
    const { term, hash } = hashed[i] as { term: string; hash: number }
    const [body, heading] = counts.get(term) as [number, number]
    if (i > 0) {
      keys += ' '
      pairs += ','
      hashes += ','
      checks += ','
      if (hashed[i - 1]?.hash === hash) unique = false
    }
    keys += termKey(indexId, term)
    pairs += `${body},${heading}`
    hashes += hash
    checks += termCheck(term)
  }
  return unique
    ? { keys, counts: `{${pairs}}`, hashes: `{${hashes}}`, checks: `{${checks}}` }
    : { keys, counts: `{${pairs}}`, hashes: null, checks: null }
}

/**
 * What one apply changes in the index's counts: per-term document frequencies, rows, tokens,
 * and the chunks it inserted (for the impact lists).
 */
type Tally = { deltas: Map<string, number>; rows: number; tokens: number; written: WrittenChunk[] }

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
   * Adds `delta` to each term's document frequency; drops terms no chunk holds any more.
   * Returns the states of the terms that have an impact list or are frequent enough for one.
   */
  async function countTerms(c: Client, indexId: number, deltas: Map<string, number>): Promise<TermState[]> {
    const terms = [...deltas.keys()].sort()
    if (terms.length === 0) return []
    const { rows: states } = await c.query<TermState>(
      `WITH counted AS (
         INSERT INTO ${t.terms} AS t (index_id, term, df)
         SELECT $1, u.term, u.d FROM unnest($2::text[], $3::int[]) AS u(term, d)
         ON CONFLICT (index_id, term) DO UPDATE SET df = t.df + excluded.df
         RETURNING t.term, t.df, t.floor, t.listed, t.reference)
       SELECT * FROM counted WHERE floor IS NOT NULL OR df >= $4`,
      [indexId, terms, terms.map((term) => deltas.get(term) ?? 0), lists.minDocFreq],
    )
    const dropped = terms.filter((term) => (deltas.get(term) ?? 0) < 0)
    if (dropped.length > 0) {
      await c.query(`DELETE FROM ${t.terms} WHERE index_id = $1 AND term = ANY($2::text[]) AND df <= 0`, [
        indexId,
        dropped,
      ])
    }
    return states
  }

  /** Writes a tally into the index's term and corpus counts. */
  async function settle(c: Client, indexId: number, tally: Tally): Promise<void> {
    await lists.update(c, indexId, await countTerms(c, indexId, tally.deltas), tally.written)
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
    await c.query(`DELETE FROM ${t.chunks} WHERE id = ANY($1::bigint[])`, [ids])
    for (const s of stored) {
      for (const key of s.terms) {
        const term = termOfKey(key)
        tally.deltas.set(term, (tally.deltas.get(term) ?? 0) - 1)
      }
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
      const counts = columnCounts(chunk.bodyTerms, chunk.headingTerms)
      for (const term of counts.keys()) tally.deltas.set(term, (tally.deltas.get(term) ?? 0) + 1)
      tally.rows++
      tally.tokens += chunk.tokenCount
      return counts
    })
    const encoded = counted.map((counts) => encodeCounts(indexId, counts))
    const withVector = (chunk: ChunkInput) => dims !== null && chunk.vector?.length === dims
    const { rows } = await c.query<{ id: number; start_line: number; end_line: number; content_hash: string }>(
      `INSERT INTO ${t.chunks} (index_id, path, source, start_line, end_line, text, headings, content_hash,
         body_terms, heading_terms, token_count, terms, counts, hashes, checks, has_vector, dated_ms,
         entry_status, entry_observed, entry_key, entry_origin, entry_hash)
       SELECT $1, $2, $3, u.s, u.e, u.tx, u.h, u.ch, u.bt, u.ht, u.tc, string_to_array(u.tm, ' '), u.cn::int4[],
         u.hs::int4[], u.ck::int4[], u.hv, u.dm, u.es, u.eo, u.ek, u.eg, u.eh
       FROM unnest($4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[],
         $12::text[], $13::text[], $14::bool[], $15::bigint[], $16::text[], $17::text[], $18::text[], $19::text[],
         $20::text[], $21::text[], $22::text[])
         AS u(s, e, tx, h, ch, bt, ht, tc, tm, cn, hv, dm, es, eo, ek, eg, eh, hs, ck)
       RETURNING id, start_line, end_line, content_hash`,
      [
        indexId,
        file.path,
        file.source,
        chunks.map((x) => x.startLine),
        chunks.map((x) => x.endLine),
        chunks.map((x) => x.text),
        chunks.map((x) => x.headings),
        chunks.map((x) => x.contentHash),
        chunks.map((x) => x.bodyTerms),
        chunks.map((x) => x.headingTerms),
        chunks.map((x) => x.tokenCount),
        encoded.map((e) => e.keys),
        encoded.map((e) => e.counts),
        chunks.map(withVector),
        chunks.map((x) => x.datedMs),
        chunks.map((x) => x.entry?.status ?? null),
        chunks.map((x) => x.entry?.observed ?? null),
        chunks.map((x) => x.entry?.key ?? null),
        chunks.map((x) => x.entry?.origin ?? null),
        chunks.map((x) => x.entryHash ?? null),
        encoded.map((e) => e.hashes),
        encoded.map((e) => e.checks),
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
      tally.written.push({
        id: idOf.get(x) as number,
        counts: counted[i] as Map<string, [number, number]>,
        tokens: x.tokenCount,
      })
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
    const tally: Tally = { deltas: new Map(), rows: 0, tokens: 0, written: [] }
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
