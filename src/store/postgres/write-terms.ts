/**
 * The terms of one batch's chunks (pure). Each distinct term gets a slot and is hashed once
 * (term-hash.ts); each chunk's counts are kept by slot, in the order its row stores its keys
 * in (by termHash, so a search finds a term by binary search). A chunk's term strings are
 * read in one pass over their characters, each term hashed as it goes (forEachHashedTerm:
 * termHash is that same FNV-1a), so a term already seen makes no string. Splitting them into
 * a map per chunk, and hashing every term of every chunk, were about a third of a cold
 * index's CPU time in this process (BENCHMARKS.md).
 */
import { forEachHashedTerm } from '../../text/term-count.js'
import { termCheck, termHash } from './term-hash.js'

/** A chunk's distinct terms as slots of its batch's WriteTerms, in its row's order, with their counts. */
export type ChunkTerms = {
  slots: Int32Array
  body: Int32Array
  heading: Int32Array
  /** No two of its terms share a termHash: its keys are in order as they are (else the INSERT sorts them). */
  unique: boolean
}

/** Up to this many slots, a slot sorts with its hash as one exact float64 (2^32 × 2^21 = 2^53). */
const PACKED_SLOTS = 2 ** 21

/**
 * `found` slots in their row's order: by signed termHash, the high half of the term's key
 * (term-hash.ts), then by slot (a row with a hash twice has its keys sorted by the INSERT,
 * which knows the index they are of, so this order is free); each slot
 * packed with its hash into one float64 when slots stay below `packed` (0: compared instead).
 */
function rowOrder(found: readonly number[], hashes: readonly number[], packed: number): Int32Array {
  const slots = Int32Array.from(found)
  if (packed === 0) return slots.sort((a, b) => (hashes[a] as number) - (hashes[b] as number) || a - b)
  const keys = new Float64Array(found.length)
  for (let i = 0; i < found.length; i++) {
    const s = found[i] as number
    keys[i] = ((hashes[s] as number) + 2 ** 31) * packed + s
  }
  keys.sort()
  for (let i = 0; i < keys.length; i++) slots[i] = (keys[i] as number) % packed
  return slots
}

const doubled = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(a.length * 2)
  b.set(a)
  return b
}

/** `packedSlots`: how many slots sort packed with their hash (tests lower it to reach the other sort). */
export function createWriteTerms(packedSlots = PACKED_SLOTS) {
  const terms: string[] = []
  /** termHash (FNV-1a, signed) and termCheck of each slot's term. */
  const hashes: number[] = []
  const checks: number[] = []
  /** The first slot of each hash, and the next slot of the same hash (-1: none). */
  const firstOf = new Map<number, number>()
  const nextOf: number[] = []
  /** The chunk at hand's count of each slot's term in its body (2 × slot) and its headings (2 × slot + 1). */
  let counts = new Int32Array(2048)
  /** Slots counted in the chunk at hand, in the order first found. */
  const found: number[] = []

  function add(term: string, hash: number): number {
    const slot = terms.length
    terms.push(term)
    hashes.push(hash)
    checks.push(termCheck(term))
    nextOf.push(firstOf.get(hash) ?? -1)
    firstOf.set(hash, slot)
    if (2 * slot >= counts.length) counts = doubled(counts)
    return slot
  }

  /** The slot of the term `text[start, end)` whose termHash is `hash`, added if new. */
  function slotIn(text: string, start: number, end: number, hash: number): number {
    for (let s = firstOf.get(hash) ?? -1; s >= 0; s = nextOf[s] as number) {
      const term = terms[s] as string
      if (term.length === end - start && text.startsWith(term, start)) return s
    }
    return add(text.slice(start, end), hash)
  }

  /** Counts the terms of one term string into the body's (0) or the headings' (1) counts. */
  function countIn(text: string, column: 0 | 1): void {
    forEachHashedTerm(text, (start, end, hash) => {
      const s = slotIn(text, start, end, hash | 0)
      if (counts[2 * s] === 0 && counts[2 * s + 1] === 0) found.push(s)
      counts[2 * s + column] = (counts[2 * s + column] as number) + 1
    })
  }

  /** The slot of `term`, added if new. */
  const slotOf = (term: string): number => slotIn(term, 0, term.length, termHash(term))

  const byText = (a: number, b: number) => ((terms[a] as string) < (terms[b] as string) ? -1 : 1)
  /** Every slot so far in term order; slots added since are sorted on their own and merged in. */
  let order = new Int32Array(0)
  function ordered(): Int32Array {
    if (order.length === terms.length) return order
    const fresh = Int32Array.from({ length: terms.length - order.length }, (_, i) => order.length + i).sort(byText)
    const merged = new Int32Array(terms.length)
    let i = 0
    let j = 0
    for (let k = 0; k < merged.length; k++) {
      merged[k] = (
        j >= fresh.length || (i < order.length && byText(order[i] as number, fresh[j] as number) < 0)
          ? order[i++]
          : fresh[j++]
      ) as number
    }
    order = merged
    return order
  }

  return {
    /** The write's distinct terms so far, by slot. */
    terms: terms as readonly string[],
    hashes: hashes as readonly number[],
    checks: checks as readonly number[],
    slotOf,
    /**
     * Every slot in term order (JavaScript's, by UTF-16 code unit), sorted once however often
     * asked: a batch's encoding sorts its terms ahead of its transaction (index-writes.ts).
     */
    ordered,
    /** A chunk's terms and their counts, from its body's and its headings' term strings. */
    count(bodyTerms: string, headingTerms: string): ChunkTerms {
      countIn(bodyTerms, 0)
      countIn(headingTerms, 1)
      const slots = rowOrder(found, hashes, terms.length <= packedSlots ? packedSlots : 0)
      const row = { body: new Int32Array(slots.length), heading: new Int32Array(slots.length) }
      let unique = true
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i] as number
        row.body[i] = counts[2 * s] as number
        row.heading[i] = counts[2 * s + 1] as number
        counts[2 * s] = 0
        counts[2 * s + 1] = 0
        if (i > 0 && hashes[s] === hashes[slots[i - 1] as number]) unique = false
      }
      found.length = 0
      return { slots, ...row, unique }
    },
  }
}

export type WriteTerms = ReturnType<typeof createWriteTerms>

/** How many more (or fewer) chunks hold each term after one write, by slot of `terms`. */
export function createTermDeltas(terms: WriteTerms) {
  /** Each touched slot's change (undefined: untouched). */
  const deltas: number[] = []
  const add = (slot: number, by: number) => {
    deltas[slot] = (deltas[slot] ?? 0) + by
  }
  return {
    /** A chunk inserted: each of its terms is in one more chunk. */
    inserted(row: ChunkTerms): void {
      for (const slot of row.slots) add(slot, 1)
    },
    /** A chunk deleted (its terms counted from its term strings, as when it was written): each is in one fewer chunk. */
    removed(row: ChunkTerms): void {
      for (const slot of row.slots) add(slot, -1)
    },
    /**
     * The terms touched, in term order, with their changes: concurrent writes lock their rows
     * in one order, and the upsert walks the terms' B-tree in its own order (in hash order,
     * which sorts faster here, a cold index was 8 % slower: four pairs of 20,001 chunks).
     */
    byTerm(): { terms: string[]; deltas: Int32Array } {
      const slots = terms.ordered().filter((s) => deltas[s] !== undefined)
      return {
        terms: Array.from(slots, (s) => terms.terms[s] as string),
        deltas: Int32Array.from(slots, (s) => deltas[s] as number),
      }
    },
  }
}
export type TermDeltas = ReturnType<typeof createTermDeltas>
