/**
 * A memory file's lines as the file view shows them: each with its number, the entry
 * metadata it opens (its comment line, parsed by the service's own parser) and the status of
 * the entry it belongs to. An entry runs from its metadata comment to the next one or the
 * next heading (a flush entry starts with its heading), as the indexer reads it.
 */
import { parseEntryMeta, type EntryMeta } from '../../src/domain/entry-meta.js'

export type ViewLine = {
  n: number
  text: string
  /** The metadata this line opens an entry with. */
  meta: EntryMeta | null
  /** The status of the entry the line is in; null outside any entry. */
  status: EntryMeta['status'] | null
}

const HEADING = /^ {0,3}#{1,6}(\s|$)/

export function viewLines(text: string, firstLine = 1): ViewLine[] {
  const lines = text === '' ? [] : text.split('\n')
  let status: ViewLine['status'] = null
  return lines.map((line, i) => {
    const parsed = parseEntryMeta(line)
    const meta = parsed.kind === 'meta' ? parsed.meta : null
    if (meta) status = meta.status
    else if (HEADING.test(line)) status = null
    return { n: firstLine + i, text: line, meta, status }
  })
}

/** The line range a `path#L10-L12` (or `#L10`) link names, or null. */
export function lineRange(anchor: string | null | undefined): { from: number; to: number } | null {
  const m = /^L(\d+)(?:-L?(\d+))?$/.exec(anchor ?? '')
  if (!m) return null
  const from = Number(m[1])
  const to = m[2] === undefined ? from : Number(m[2])
  return from >= 1 && to >= from ? { from, to } : null
}
