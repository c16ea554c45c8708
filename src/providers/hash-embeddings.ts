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

/** 32-bit FNV-1a over UTF-16 code units; fast and well spread for short strings. */
function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** Feature weights of a text: term counts, then sublinear (1 + ln tf) scaling. */
function features(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  const add = (f: string, w: number) => counts.set(f, (counts.get(f) ?? 0) + w)
  for (const term of indexTokens(text)) {
    add(`t:${term}`, 1)
    if (LATIN_WORD.test(term)) {
      const padded = `#${term}#`
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT)
    }
  }
  for (const [f, c] of counts) counts.set(f, c > 0 ? 1 + Math.log(c) : 0)
  return counts
}

/** The hashed, L2-normalised vector of `text` (all zeros only for text without features). */
export function hashEmbed(text: string, dims: number): Float32Array {
  const v = new Float32Array(dims)
  for (const [feature, weight] of features(text)) {
    const h = fnv1a(feature, 0)
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
    model: `hash-v1-${dims}`,
    dims,
    maxBatch: 256,
    cacheable: false,
    embedQuery: async (text): Promise<Embedding> => ({ vector: hashEmbed(text, dims), tokens: 0 }),
    embedBatch: async (texts): Promise<EmbeddingBatch> => ({
      vectors: texts.map((t) => hashEmbed(t, dims)),
      tokens: 0,
    }),
  }
}
