/**
 * Query variants (the reference QMD `query` mode): `lex` are keyword queries, run through
 * keyword search; `vec` are rephrasings and `hyde` a hypothetical answer, run through vector
 * search (without an embedder, `vec` runs by keyword and `hyde` is dropped).
 */
export type VariantType = 'lex' | 'vec' | 'hyde'

export type Variant = { type: VariantType; text: string }

/** Where variants come from: a chat model, or the heuristic. */
export type VariantSource = {
  /** Names the source in cache keys and logs: the chat model, or "heuristic". */
  readonly model: string
  variants(query: string, signal: AbortSignal): Promise<Variant[]>
}

/** Most variants of each type kept from one answer. */
export const MAX_VARIANTS: Readonly<Record<VariantType, number>> = { lex: 3, vec: 2, hyde: 1 }
/** Longest variant kept, in characters (a hypothetical answer is a short passage). */
export const MAX_VARIANT_CHARS = 500

const squash = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * Variants as kept: whitespace collapsed, cut to MAX_VARIANT_CHARS, empty ones, repeats and
 * copies of the query dropped (case-insensitive), at most MAX_VARIANTS of each type.
 */
export function keepVariants(query: string, variants: readonly Variant[]): Variant[] {
  const seen = new Set([`lex\u0000${squash(query).toLowerCase()}`, `vec\u0000${squash(query).toLowerCase()}`])
  const counts: Record<VariantType, number> = { lex: 0, vec: 0, hyde: 0 }
  const out: Variant[] = []
  for (const v of variants) {
    const text = squash(v.text).slice(0, MAX_VARIANT_CHARS).trim()
    const key = `${v.type}\u0000${text.toLowerCase()}`
    if (!text || seen.has(key) || counts[v.type] >= MAX_VARIANTS[v.type]) continue
    seen.add(key)
    counts[v.type]++
    out.push({ type: v.type, text })
  }
  return out
}
