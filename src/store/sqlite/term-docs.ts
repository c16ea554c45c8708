/**
 * Exact document counts of the common terms (those with impact lists), kept by the writer
 * in the transactions that insert and delete chunks. FTS5 counts a term's documents by
 * walking all of its postings (chunks_vocab, about 0.1 µs a posting: 50 ms for a term in
 * half of a million chunks), and a search thread counts again after every commit, so the
 * first search for a common word after each write paid it. A kept count is one row to read.
 *
 * A term is kept from the write transaction that counted it from FTS5 (impact-lists.ts), so
 * its count is exact at every commit from then on: every chunk row and its FTS5 row are
 * inserted and deleted together (chunk-rows.ts), and each one adjusts the counts of the kept
 * terms it holds, split as FTS5 splits them (text/term-count.ts createTermCounter: one
 * hashed pass over each chunk's terms). Counts are never dropped: a term that became rare
 * again costs the writes that hold it one update each.
 */
import { createTermCounter } from '../../text/term-count.js'
import type { Db } from './database.js'

export function createTermDocs(db: Db) {
  const stmt = {
    all: db.prepare<[], { term: string }>('SELECT term FROM term_docs'),
    put: db.prepare<[string, number]>(
      'INSERT INTO term_docs (term, doc) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET doc = excluded.doc',
    ),
    add: db.prepare<[number, string]>('UPDATE term_docs SET doc = doc + ? WHERE term = ?'),
    termsOf: db.prepare<[number], { body: string; heading: string }>(
      'SELECT body_terms AS body, heading_terms AS heading FROM chunks WHERE id = ?',
    ),
  }
  /** The kept terms. A term added in a transaction that rolled back has no row: its updates change nothing. */
  const kept = new Set(stmt.all.all().map((row) => row.term))
  /** The kept terms and their counter, made again after keep() added one. */
  let counting: { terms: string[]; counter: ReturnType<typeof createTermCounter> } | null = null

  /** Adds `sign` to the count of each kept term of a chunk (once, whatever its occurrences). */
  function tally(deltas: Map<string, number>, body: string, heading: string, sign: 1 | -1): void {
    if (!counting) {
      const terms = [...kept]
      counting = { terms, counter: createTermCounter(terms) }
    }
    const { terms } = counting
    counting.counter.count(body, heading, (t) => {
      const term = terms[t] as string
      deltas.set(term, (deltas.get(term) ?? 0) + sign)
    })
  }
  function apply(deltas: Map<string, number>): void {
    for (const [term, delta] of deltas) if (delta !== 0) stmt.add.run(delta, term)
  }

  return {
    /** How many terms are kept. */
    size: (): number => kept.size,
    /** Keeps `term`'s count from now on: `doc`, counted by FTS5 in this same transaction. */
    keep(term: string, doc: number): void {
      stmt.put.run(term, doc)
      kept.add(term)
      counting = null
    },
    /** Counts chunks just inserted (with their FTS5 rows). */
    inserted(chunks: readonly { bodyTerms: string; headingTerms: string }[]): void {
      if (kept.size === 0) return
      const deltas = new Map<string, number>()
      for (const c of chunks) tally(deltas, c.bodyTerms, c.headingTerms, 1)
      apply(deltas)
    },
    /** Counts chunks about to be deleted (their rows still hold their terms). */
    removing(ids: readonly number[]): void {
      if (kept.size === 0) return
      const deltas = new Map<string, number>()
      for (const id of ids) {
        const row = stmt.termsOf.get(id)
        if (row) tally(deltas, row.body, row.heading, -1)
      }
      apply(deltas)
    },
  }
}

export type TermDocs = ReturnType<typeof createTermDocs>
