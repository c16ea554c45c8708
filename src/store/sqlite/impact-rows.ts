/**
 * Row-level reads and writes of the impact lists (schema.ts: impact_terms,
 * impact_postings) and what building them reads, on one connection; impact-lists.ts decides
 * when and what. Not transactional by themselves.
 */
import type { Db } from './database.js'
import type { Posting, TopImpacts } from './top-impacts.js'

/** A list's term row (schema.ts). */
export type TermRow = { term: string; reference: number; floor: number; upto: number; listed: number; lowest: number }
/** A chunk's analysed terms and length, as building a list reads them. */
export type ChunkTerms = { id: number; tokens: number; body: string; heading: string }

export function createImpactRows(db: Db) {
  const stmt = {
    maxId: db.prepare<[], { m: number | null }>('SELECT MAX(id) AS m FROM chunks'),
    getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare<[string, string]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
    // FTS5's vocabulary is read in term order as it is stored: no sort, each row counted as it is read.
    vocab: db.prepare<[string], { term: string; doc: number }>(
      'SELECT term, doc FROM chunks_vocab WHERE term > ? ORDER BY term',
    ),
    chunks: db.prepare<[number, number, number], ChunkTerms>(
      `SELECT id, token_count AS tokens, body_terms AS body, heading_terms AS heading FROM chunks
       WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`,
    ),
    terms: db.prepare<[], TermRow>('SELECT term, reference, floor, upto, listed, lowest FROM impact_terms'),
    // Postings of chunks deleted since are left out: they only take room.
    postings: db.prepare<[string], Posting>(
      `SELECT p.chunk_id AS id, p.impact FROM impact_postings p JOIN chunks c ON c.id = p.chunk_id
       WHERE p.term = ?`,
    ),
    clear: db.prepare<[string]>('DELETE FROM impact_postings WHERE term = ?'),
    insert: db.prepare<[string, number, number]>(
      'INSERT INTO impact_postings (term, impact, chunk_id) VALUES (?, ?, ?)',
    ),
    putTerm: db.prepare<[string, number, number, number, number, number]>(
      `INSERT INTO impact_terms (term, reference, floor, upto, listed, lowest) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(term) DO UPDATE SET reference = excluded.reference, floor = excluded.floor, upto = excluded.upto,
         listed = excluded.listed, lowest = excluded.lowest`,
    ),
    raiseFloor: db.prepare<[number, number, string]>('UPDATE impact_terms SET floor = ?, upto = ? WHERE term = ?'),
    advance: db.prepare<[number, number]>('UPDATE impact_terms SET upto = ? WHERE upto < ?'),
    dropOlder: db.prepare<[number]>(
      `DELETE FROM impact_postings WHERE term IN (SELECT term FROM impact_terms WHERE upto < ?)`,
    ),
    dropOlderTerms: db.prepare<[number]>('DELETE FROM impact_terms WHERE upto < ?'),
  }

  return {
    ...stmt,
    meta: (key: string): string | undefined => stmt.getMeta.get(key)?.value,
    /** The newest chunk's id (0 without chunks). */
    maxId: (): number => stmt.maxId.get()?.m ?? 0,
    /** Writes a term's list of impacts against `reference` terms, covering chunks up to `upto`. */
    putList(term: string, top: TopImpacts, reference: number, upto: number): void {
      const { floor, postings } = top.result()
      stmt.clear.run(term)
      for (const p of postings) stmt.insert.run(term, p.impact, p.id)
      stmt.putTerm.run(term, reference, floor, upto, postings.length, postings.at(-1)?.impact ?? floor)
    },
  }
}

export type ImpactRows = ReturnType<typeof createImpactRows>
