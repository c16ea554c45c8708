/**
 * Reads the variants out of a chat model's answer, defensively: models wrap JSON in code
 * fences, add prose around it, answer QMD's line format instead, or give a string where a
 * list was asked. Accepted, in this order:
 *   - a JSON object {"lex": [..], "vec": [..], "hyde": ".."} (a string or a list for each),
 *   - a JSON list [{"type": "lex", "text": ".."}, ..],
 *   - lines "lex: ..", "vec: ..", "hyde: .." (QMD's format; other lines are ignored).
 * Anything else holds no variants (an empty list: the caller treats it as a failure).
 */
import type { Variant, VariantType } from './variants.js'

const TYPES: readonly VariantType[] = ['lex', 'vec', 'hyde']
const isType = (t: unknown): t is VariantType => typeof t === 'string' && (TYPES as string[]).includes(t)
const LINE = /^\s*[-*]?\s*(lex|vec|hyde)\s*:\s*(.+)$/i

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string')
  return []
}

function fromJson(json: unknown): Variant[] {
  if (Array.isArray(json)) {
    return json.flatMap((item): Variant[] => {
      const { type, text } = (item ?? {}) as { type?: unknown; text?: unknown }
      return isType(type) && typeof text === 'string' ? [{ type, text }] : []
    })
  }
  if (json && typeof json === 'object') {
    const record = json as Record<string, unknown>
    return TYPES.flatMap((type) => texts(record[type]).map((text) => ({ type, text })))
  }
  return []
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The JSON value in `content`: all of it, else its outermost {..} or [..] (prose and fences around). */
function findJson(content: string): unknown {
  const whole = tryJson(content.trim())
  if (whole !== undefined) return whole
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = content.indexOf(open)
    const end = content.lastIndexOf(close)
    if (start >= 0 && end > start) {
      const inner = tryJson(content.slice(start, end + 1))
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

export function parseVariants(content: string): Variant[] {
  const json = findJson(content)
  const fromObject = json === undefined ? [] : fromJson(json)
  if (fromObject.length > 0) return fromObject
  return content.split('\n').flatMap((line): Variant[] => {
    const m = LINE.exec(line)
    return m ? [{ type: (m[1] as string).toLowerCase() as VariantType, text: m[2] as string }] : []
  })
}
