/**
 * The text part of each MCP tool result (pure): what a model reads. Every memory is cited
 * as `path#Lstart-Lend`, the form the tool descriptions ask the model to quote; an empty
 * search says plainly that nothing is remembered, so the model does not invent a memory.
 */
import type { FileWindow } from '../files/file-service.js'
import type { EntryFlushResult, EntryWriteResult, Location, SupersedeResult } from '../files/entry-service.js'
import type { WriteResult } from '../files/write-service.js'
import type { SearchResponse } from '../search/types.js'
import { grantOwner } from '../shared/agent-id.js'
import type { DeleteResult, FileListing, ForgetAnswer } from './memory-backend.js'

/** `memory/2026-03-01.md#L3-L7` (one line: `#L3`). */
export const citation = (path: string, startLine: number, endLine: number): string =>
  endLine > startLine ? `${path}#L${startLine}-L${endLine}` : `${path}#L${startLine}`

export function searchText(query: string, res: SearchResponse): string {
  const degraded = res.degraded
    ? `\n(Degraded: ${Object.entries(res.degraded)
        .map(([stage, why]) => `${stage} search unavailable, ${why}`)
        .join('; ')})`
    : ''
  const shortened = res.snippetsShortened
    ? `\n(${res.snippetsShortened} passages shortened to keep this answer small; read them with memory_get.)`
    : ''
  // The id memory_feedback names the search by (clients may show the model only the text).
  const id = res.requestId === undefined ? '' : `\n(search id ${res.requestId})`
  const notes = degraded + shortened + id
  if (res.results.length === 0) {
    return `No memory matches "${query}": nothing relevant is remembered.${notes}`
  }
  const blocks = res.results.map((r, i) => {
    const owner = grantOwner(r.space)
    const where = r.space === 'team' ? ', team memory' : owner === null ? '' : `, memory of agent "${owner}"`
    // A superseded entry (asked for with includeSuperseded) is history, not the current fact.
    const status = r.status === 'superseded' ? `, superseded${r.observed ? ` (observed ${r.observed})` : ''}` : ''
    const origin = r.origin ? `, from ${r.origin}` : ''
    return `[${i + 1}] ${citation(r.path, r.startLine, r.endLine)} (score ${r.score.toFixed(2)}${where}${status}${origin})\n${r.snippet}`
  })
  const count = res.results.length === 1 ? '1 memory' : `${res.results.length} memories`
  return `${count} for "${query}", best first:\n\n${blocks.join('\n\n')}${notes}`
}

export function listText(list: FileListing): string {
  if (list.files.length === 0) return 'No memory files yet.'
  const rows = list.files.map((f) => `${f.path} (${f.lines} lines, ${f.sizeBytes} bytes, modified ${f.mtime})`)
  const count = rows.length === 1 ? '1 memory file' : `${rows.length} memory files`
  return `${count}:\n${rows.join('\n')}`
}

/** The hash is in the text: clients that show the model only the text still let it replace the file. */
export function getText(file: FileWindow): string {
  if (file.to < file.from) {
    return `${file.path} has ${file.totalLines} lines; nothing from line ${file.from} on (sha256 ${file.sha256}).`
  }
  return `${citation(file.path, file.from, file.to)} (of ${file.totalLines} lines, sha256 ${file.sha256}):\n${file.text}`
}

const cite = (l: Location) => citation(l.path, l.startLine, l.endLine)

/** What a write also did: superseded entries of the same key. */
const supersededText = (res: { superseded?: Location[] }) =>
  res.superseded && res.superseded.length > 0 ? ` Superseded ${res.superseded.map(cite).join(', ')}.` : ''

export function writeText(res: EntryWriteResult): string {
  if (res.duplicate) return `Already remembered as ${cite(res)}; nothing was appended.`
  const state = res.indexed ? 'searchable now' : 'saved; it becomes searchable at the next sync'
  return `Appended ${citation(res.path, res.startLine, res.endLine)} (${state}).${supersededText(res)}`
}

export function replaceText(res: WriteResult): string {
  const state = res.indexed ? '' : '; it becomes searchable at the next sync'
  const what =
    res.endLine < res.startLine
      ? `${res.path} is now empty`
      : `Replaced ${citation(res.path, res.startLine, res.endLine)}`
  return `${what} (sha256 ${res.sha256}${state}).`
}

export function deleteText(res: DeleteResult): string {
  return `Deleted ${res.path}${res.indexed ? '' : ' (its passages leave search at the next sync)'}.`
}

export function flushText(res: EntryFlushResult): string {
  const skipped = 'skipped' in res && res.skipped && res.skipped.length > 0 ? res.skipped.map(cite).join(', ') : ''
  if ('duplicate' in res) return `Already remembered as ${skipped}; nothing was saved.`
  if (!('path' in res)) return 'Nothing to save; the index is up to date with every file.'
  const where = citation(res.path, res.startLine, res.endLine)
  if (res.replayed) return `Already saved earlier as ${where} (same flushId); nothing was appended.`
  const also = skipped === '' ? '' : ` Some notes were remembered already (${skipped}) and not saved again.`
  return `Saved ${where}${res.indexed ? '' : ' (searchable at the next sync)'}.${also}${supersededText(res)}`
}

export function supersedeText(res: SupersedeResult): string {
  const state = res.indexed ? '' : ' (searchable at the next sync)'
  return `Wrote ${cite(res.entry)}${state}; superseded ${res.superseded.map(cite).join(', ')} (sha256 ${res.sha256}).`
}

export function forgetText(res: ForgetAnswer): string {
  if (res.removed.length === 0) return `Nothing of session "${res.sessionId}" was in memory.`
  return `Forgot session "${res.sessionId}": removed ${res.removed.map(cite).join(', ')}.`
}
