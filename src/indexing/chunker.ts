/**
 * Markdown chunker (SPEC §5). Line-aware: every chunk is a run of whole lines (or pieces of
 * one over-long line) with exact 1-based start/end lines. A heading starts a new chunk and
 * is remembered as context for the chunks under it; a chunk that overflows `maxTokens` is cut
 * at the last blank line or fence edge when one is near, never inside a code fence unless
 * the fence alone is too big, and the next chunk repeats up to `overlapTokens` of its tail.
 *
 * Entries (issue 31, domain/entry-meta.ts): a metadata comment opens an entry that runs to
 * the next metadata comment or heading (a flush entry starts with its heading). A chunk
 * never holds two entries: a metadata comment cuts the chunk before it, with no overlap
 * carried across, so each result is one fact with its own date, status and duplicate hash. The comment line itself is left out
 * of the chunk's text (its line number kept), as flush markers are. A text without metadata
 * comments chunks exactly as before, every chunk's `entry` null.
 */
import { parseEntryMeta, type ChunkEntry } from '../domain/entry-meta.js'
import { FENCE, fenceAfter } from '../text/fences.js'
import { splitLines } from '../text/lines.js'
import { estimateTokens, exceedsTokens } from '../text/token-estimate.js'
import { linePieces } from './line-pieces.js'

export type ChunkOptions = {
  /** Target chunk size in estimated tokens (default 400). */
  maxTokens: number
  /** Tokens of a chunk's tail repeated at the start of the next one (default 80). */
  overlapTokens: number
}

export type Chunk = {
  startLine: number
  endLine: number
  text: string
  /** Heading texts (without `#`) enclosing the chunk's first line, outermost first. */
  headings: string[]
  tokens: number
  /** The entry of its first line of content; null outside any entry (no metadata). */
  entry: ChunkEntry | null
}

/** A metadata comment the chunker could not read: indexed as text, and worth a warning. */
export type MalformedMeta = { line: number; reason: string }

type Unit = {
  line: number
  text: string
  tokens: number
  blank: boolean
  /** A cut is allowed before this unit without splitting a fence or a paragraph. */
  breakBefore: boolean
  /** Piece of a long line that is not its last piece: the chunk must end after it. */
  forcedCut: boolean
  /** The entry the line is in (null: none). */
  entry: ChunkEntry | null
}

/**
 * What chunking has made of a text's first whole lines, to go on from when the text grows
 * by lines at its end (a day file after a flush, a transcript after a turn): the chunker
 * reads line by line without looking ahead, so from the same state the rest of a longer
 * text chunks exactly as a chunking of the whole would. Chunks emitted before it are final.
 */
export type ChunkCheckpoint = {
  /** The text it was taken in, up to and including its last newline: a text starting with it can resume. */
  readonly prefix: string
  /** Lines of the prefix consumed. */
  readonly lines: number
  /** Chunks emitted by then: the first chunks of any text starting with the prefix. */
  readonly chunks: number
  readonly state: ChunkerState
}

/** The chunker's state between two lines (copied, never shared with a running chunking). */
type ChunkerState = {
  readonly headingStack: readonly { level: number; text: string }[]
  readonly current: readonly Unit[]
  readonly currentTokens: number
  readonly currentHeadings: string[]
  readonly fence: string | null
  readonly prevBlank: boolean
  /** The entry the next line is in, unless it opens or ends one. */
  readonly entry: ChunkEntry | null
}

/** What chunkMarkdownFrom makes: the chunks after the first `skipped`, and where to resume next. */
export type ResumedChunks = {
  chunks: Chunk[]
  /** Chunks of the checkpoint resumed from, which come before `chunks` (0: chunked from the start). */
  skipped: number
  checkpoint: ChunkCheckpoint
  /** Metadata comments read as text in the lines chunked this time (after the checkpoint). */
  malformed: MalformedMeta[]
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/

/** A cut point at or after half the budget is good enough to prefer over a hard cut. */
const MIN_FILL_FOR_SOFT_CUT = 0.5

/** Gives the event loop a turn when the caller's time slice is used up (shared/async.ts). */
export type Yielder = { maybeYield(): Promise<void> }

export const NEVER_YIELD: Yielder = { maybeYield: async () => undefined }

/**
 * Chunks of `text`, cut at lines, headings and fences. Asynchronous so that a huge file (a
 * line of megabytes) is chunked in slices: `slicer` is asked after every line and piece.
 */
export async function chunkMarkdown(text: string, opts: ChunkOptions, slicer: Yielder = NEVER_YIELD): Promise<Chunk[]> {
  return (await chunkMarkdownFrom(text, null, opts, slicer)).chunks
}

/**
 * chunkMarkdown going on from `from` when `text` starts with its prefix (else from the
 * start): only the chunks after the checkpoint's are made.
 */
export async function chunkMarkdownFrom(
  text: string,
  from: ChunkCheckpoint | null,
  opts: ChunkOptions,
  slicer: Yielder = NEVER_YIELD,
): Promise<ResumedChunks> {
  const { maxTokens, overlapTokens } = opts
  const resume = from !== null && text.startsWith(from.prefix) ? from : null
  const chunks: Chunk[] = []
  const headingStack = [...(resume?.state.headingStack ?? [])]
  let current: Unit[] = [...(resume?.state.current ?? [])]
  let currentTokens = resume?.state.currentTokens ?? 0
  let currentHeadings: string[] = resume?.state.currentHeadings ?? []
  let fence: string | null = resume?.state.fence ?? null
  let entry: ChunkEntry | null = resume?.state.entry ?? null
  const malformed: MalformedMeta[] = []

  const isContent = (u: Unit) => !u.blank && !HEADING.test(u.text)
  const hasContent = (units: Unit[]) => units.some(isContent)

  function emit(units: Unit[]): void {
    let lo = 0
    let hi = units.length
    while (lo < hi && (units[lo] as Unit).blank) lo++
    while (hi > lo && (units[hi - 1] as Unit).blank) hi--
    if (lo === hi) return
    const body = units.slice(lo, hi)
    chunks.push({
      startLine: (body[0] as Unit).line,
      endLine: (body[body.length - 1] as Unit).line,
      text: body.map((u) => u.text).join('\n'),
      headings: currentHeadings,
      tokens: body.reduce((sum, u) => sum + u.tokens, 0),
      entry: body.find(isContent)?.entry ?? null,
    })
  }

  /** Starts a new chunk, carrying up to overlapTokens of the emitted tail when asked. */
  function restart(carry: Unit[], withOverlap: Unit[]): void {
    const overlap: Unit[] = []
    let tokens = 0
    for (let i = withOverlap.length - 1; i >= 0; i--) {
      const u = withOverlap[i] as Unit
      if (u.forcedCut || tokens + u.tokens > overlapTokens) break
      overlap.unshift(u)
      tokens += u.tokens
    }
    current = [...overlap, ...carry]
    currentTokens = current.reduce((sum, u) => sum + u.tokens, 0)
  }

  function overflow(): void {
    let cut = current.length
    let tokens = currentTokens
    for (let i = current.length - 1; i > 0; i--) {
      tokens -= (current[i] as Unit).tokens
      if ((current[i] as Unit).breakBefore && tokens >= maxTokens * MIN_FILL_FOR_SOFT_CUT) {
        cut = i
        break
      }
    }
    const emitted = current.slice(0, cut)
    emit(emitted)
    restart(current.slice(cut), emitted)
  }

  function add(unit: Unit): void {
    if (currentTokens + unit.tokens > maxTokens && hasContent(current)) overflow()
    if (current.length === 0) currentHeadings = headingStack.map((h) => h.text)
    current.push(unit)
    currentTokens += unit.tokens
    if (unit.forcedCut) {
      emit(current)
      restart([], [])
    }
  }

  const lines = splitLines(text)
  // Lines ended by a newline; a last line without one may still grow, so it comes after the checkpoint.
  const whole = text.endsWith('\n') || lines.length === 0 ? lines.length : lines.length - 1
  let prevBlank = resume?.state.prevBlank ?? true

  async function readLine(i: number): Promise<void> {
    let line = lines[i] as string
    const lineNo = i + 1
    const heading = fence === null ? HEADING.exec(line) : null
    if (heading) entry = null
    else if (fence === null && line.includes('<!--')) {
      const parsed = parseEntryMeta(line)
      if (parsed.kind === 'meta') {
        const { status, observed, key, origin } = parsed.meta
        entry = { status, observed, key, origin }
        line = ''
        // Each entry in chunks of its own: a chunk is one fact, with its own date and hash.
        if (hasContent(current)) {
          emit(current)
          current = []
          currentTokens = 0
        }
      } else if (parsed.kind === 'malformed') malformed.push({ line: lineNo, reason: parsed.reason })
    }
    const blank = line.trim() === ''
    const fenceMatch = FENCE.exec(line)

    if (heading) {
      if (hasContent(current)) {
        emit(current)
        current = []
        currentTokens = 0
      }
      const level = (heading[1] as string).length
      while (headingStack.length > 0 && (headingStack[headingStack.length - 1] as { level: number }).level >= level) {
        headingStack.pop()
      }
      headingStack.push({ level, text: heading[2] as string })
      if (current.length === 0 || !hasContent(current)) currentHeadings = headingStack.map((h) => h.text)
    }

    const opensFence = fence === null && fenceMatch !== null
    const breakBefore = fence === null && (prevBlank || opensFence || heading !== null)
    // One token for the line break. A megabyte line is not counted, only cut into pieces.
    if (exceedsTokens(line, maxTokens - 1)) {
      // Each piece is added once the next is known: only the last may end the line's chunk.
      let pending: Unit | null = null
      for (const piece of linePieces(line, maxTokens, overlapTokens)) {
        if (pending) add({ ...pending, forcedCut: true })
        pending = {
          line: lineNo,
          text: piece.text,
          tokens: piece.tokens,
          blank: false,
          breakBefore,
          forcedCut: false,
          entry,
        }
        if (piece.start > 0) pending.breakBefore = false
        await slicer.maybeYield()
      }
      if (pending) add(pending)
    } else {
      add({ line: lineNo, text: line, tokens: estimateTokens(line) + 1, blank, breakBefore, forcedCut: false, entry })
    }

    fence = fenceAfter(fence, line, fenceMatch?.[1])
    prevBlank = blank || (fence === null && fenceMatch !== null && !opensFence)
    await slicer.maybeYield()
  }

  for (let i = resume?.lines ?? 0; i < whole; i++) await readLine(i)
  const checkpoint: ChunkCheckpoint = {
    prefix: text.slice(0, text.lastIndexOf('\n') + 1),
    lines: whole,
    chunks: (resume?.chunks ?? 0) + chunks.length,
    state: {
      headingStack: [...headingStack],
      current: [...current],
      currentTokens,
      currentHeadings,
      fence,
      prevBlank,
      entry,
    },
  }
  // What the checkpoint saw is reported once: a resumed chunking starts after it.
  const malformedBefore = malformed.length
  for (let i = whole; i < lines.length; i++) await readLine(i)
  emit(current)
  return { chunks, skipped: resume?.chunks ?? 0, checkpoint, malformed: malformed.slice(0, malformedBefore) }
}
