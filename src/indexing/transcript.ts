/**
 * Session transcripts (JSONL, one message per line: `{role, content, ts?}`, or the same
 * message wrapped as `{message: {role, content}}`) become indexable text with one line per
 * JSONL line, so chunk line numbers are JSONL line numbers. A message becomes
 * `role: content` on one line (content parts joined, whitespace collapsed); every other line
 * becomes empty. Lines that are not JSON objects are counted as malformed; valid JSON that
 * is not a message (session metadata, tool events) is skipped without counting.
 */

/** A role is a short word; anything else is not treated as a message. */
const ROLE = /^[A-Za-z_][\w-]{0,31}$/

export type TranscriptText = { text: string; messages: number; malformed: number }

/** The text of a message's content: a string, or the text of its parts. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return null
  const parts: string[] = []
  for (const part of content) {
    if (typeof part === 'string') parts.push(part)
    else if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
      parts.push((part as { text: string }).text)
    }
  }
  return parts.join(' ')
}

/** `role: content` for a message line, '' for a line to skip, null for a malformed line. */
function messageLine(line: string): string | null {
  if (line.trim() === '') return ''
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return null
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null
  const wrapped = (value as { message?: unknown }).message
  const msg = (wrapped && typeof wrapped === 'object' ? wrapped : value) as { role?: unknown; content?: unknown }
  if (typeof msg.role !== 'string' || !ROLE.test(msg.role)) return ''
  const text = contentText(msg.content)?.replace(/\s+/g, ' ').trim()
  return text ? `${msg.role}: ${text}` : ''
}

export function transcriptText(jsonl: string): TranscriptText {
  const out: string[] = []
  let messages = 0
  let malformed = 0
  for (const raw of jsonl.split('\n')) {
    const line = messageLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw)
    if (line === null) malformed++
    else if (line !== '') messages++
    out.push(line ?? '')
  }
  return { text: out.join('\n'), messages, malformed }
}
