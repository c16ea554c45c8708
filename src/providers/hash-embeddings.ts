/**
 * The `hash` embedding provider: deterministic vectors built offline from the text's own
 * features, with signed feature hashing (each feature adds ±weight to one of `dims`
 * buckets, the sign from another bit of the same hash, so collisions cancel out on
 * average). Features are the analyzer's terms (stemmed words, identifier parts, CJK
 * bigrams and characters) and character trigrams of words, so "deploy" and "deployment"
 * or a misspelt name still land near each other.
 *
 * Honest scope: this measures lexical overlap, not meaning. It finds partial and fuzzy
 * matches that exact terms miss; it does not know that "car" and "automobile" agree.
 */
import { indexTokens } from '../text/analyzer.js'
import type { Embedding, EmbeddingBatch, EmbeddingProvider } from './types.js'

/** Weight of a character trigram relative to a whole term. */
const TRIGRAM_WEIGHT = 0.5
const LATIN_WORD = /^[a-z][a-z0-9]{2,}$/
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
/** Different starting states keep term and trigram features apart. */
const TERM_SEED = 0
const TRIGRAM_SEED = 0x9e3779b9
/** Code of '#', the word boundary in trigrams ("#de", "dep", …, "oy#"). */
const BOUNDARY = 35

/** 32-bit FNV-1a over UTF-16 code units; fast and well spread for short strings. */
function fnv1a(s: string, seed: number): number {
  let h = (FNV_OFFSET ^ seed) >>> 0
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME) >>> 0
  return h
}

/** FNV-1a of the trigram at `start` of "#word#", computed from char codes (no substrings). */
function trigramHash(word: string, start: number): number {
  let h = (FNV_OFFSET ^ TRIGRAM_SEED) >>> 0
  for (let k = start; k < start + 3; k++) {
    const code = k === 0 || k === word.length + 1 ? BOUNDARY : word.charCodeAt(k - 1)
    h = Math.imul(h ^ code, FNV_PRIME) >>> 0
  }
  return h
}

/** Weighted occurrence counts of each feature, keyed by the feature's 32-bit hash. */
function features(text: string): Map<number, number> {
  const counts = new Map<number, number>()
  const add = (h: number, w: number) => counts.set(h, (counts.get(h) ?? 0) + w)
  for (const term of indexTokens(text)) {
    add(fnv1a(term, TERM_SEED), 1)
    if (LATIN_WORD.test(term)) for (let i = 0; i + 3 <= term.length + 2; i++) add(trigramHash(term, i), TRIGRAM_WEIGHT)
  }
  return counts
}

/** The hashed, L2-normalised vector of `text` (all zeros only for text without features). */
export function hashEmbed(text: string, dims: number): Float32Array {
  const v = new Float32Array(dims)
  for (const [h, count] of features(text)) {
    // Sublinear term frequency: a word said five times is not five times as telling.
    const weight = count > 0 ? 1 + Math.log(count) : 0
    const bucket = h % dims
    v[bucket] = (v[bucket] as number) + (h & 0x80000000 ? -1 : 1) * weight
  }
  let norm = 0
  for (let i = 0; i < dims; i++) norm += (v[i] as number) ** 2
  norm = Math.sqrt(norm)
  if (norm > 0) for (let i = 0; i < dims; i++) v[i] = (v[i] as number) / norm
  return v
}

export function createHashEmbeddings(opts: { dims: number }): EmbeddingProvider {
  const { dims } = opts
  return {
    id: 'hash',
    model: `hash-v2-${dims}`,
    dims,
    maxBatch: 256,
    cacheable: false,
    // 7–35 of 256 dimensions are non-zero for a query of a few words.
    sparseQueries: true,
    embedQuery: async (text): Promise<Embedding> => ({ vector: hashEmbed(text, dims), tokens: 0 }),
    embedBatch: async (texts): Promise<EmbeddingBatch> => ({
      vectors: texts.map((t) => hashEmbed(t, dims)),
      tokens: 0,
    }),
  }
}
