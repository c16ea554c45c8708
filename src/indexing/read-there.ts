/**
 * A file read and prepared on another thread (the engine's threads: wiring/index-thread-jobs.ts)
 * for a sync pass (pass-read.ts). A first sync's main thread was its critical path, and about
 * a tenth of its work was reading files: some ten calls to the file system per file (each
 * folder on the way and the file opened without following symlinks, checked, read, closed),
 * then the bytes hashed, decoded and copied to the thread that prepared them. Done there,
 * the main thread only writes what comes back. The file is read by the same function as
 * here (files/workspace-fs.ts readWorkspaceFile), so it is refused for the same reasons.
 */
import { sha256 } from '../domain/hashing.js'
import { readWorkspaceFile, type ReadResult } from '../files/workspace-fs.js'
import { decodeText } from '../text/lines.js'
import type { ChunkOptions, Yielder } from './chunker.js'
import { prepareText, type FileInput, type PreparedText } from './prepare-file.js'
import { transcriptText } from './transcript.js'

/**
 * Texts prepared there, in characters, at most: a longer one would hold a thread (and the
 * searches queued behind it) for over 80 ms; it comes back as text, and the main thread
 * prepares it in slices between searches.
 */
export const THERE_MAX_CHARS = 1024 * 1024

export type ReadThereInput = {
  /** The folder the file is read from (a real path, or a held folder's: files/held-root.ts). */
  root: string
  /** The file under `root`, '/'-separated. */
  path: string
  maxBytes: number
  /** The index's hash of the file: a file that still has it is not prepared (null: it is). */
  unchangedIf: string | null
  /** The file's rows as prepareText takes them, but for what reading it gives. */
  file: Omit<FileInput, 'text' | 'sha256' | 'sizeBytes'>
  chunking: ChunkOptions
}

/** What reading a file there came to; read errors come back as `failed`, with their code. */
export type ReadThere =
  | Exclude<ReadResult, { kind: 'ok' }>
  | { kind: 'failed'; code: string | null; message: string }
  | { kind: 'unchanged'; sha256: string; sizeBytes: number }
  /** Too long to prepare there: its text as read (decoded), prepared by the caller. */
  | { kind: 'text'; sha256: string; sizeBytes: number; text: string }
  /** `malformedLines`: a transcript's lines that were not JSON (transcript.ts). */
  | { kind: 'prepared'; sha256: string; sizeBytes: number; prepared: PreparedText; malformedLines: number }

/** Where a pass has files read and prepared; `local` does it on the caller's thread when none can. */
export type PrepareOffThread = (input: ReadThereInput, local: () => Promise<ReadThere>) => Promise<ReadThere>

/**
 * Where an indexer has files read and prepared (the engine's threads). `background`: for a
 * pass nobody waits for (a sync, a rebuild), which gives way to searches; a first sync a
 * request waits for does not.
 */
export type PrepareElsewhere = (...args: [...Parameters<PrepareOffThread>, background: boolean]) => Promise<ReadThere>

/** Reads `input`'s file and prepares its rows, unless it is unchanged or too long; never throws for a read. */
export async function readAndPrepare(input: ReadThereInput, slicer: Yielder): Promise<ReadThere> {
  let read: ReadResult
  try {
    read = await readWorkspaceFile(input.root, input.path, input.maxBytes)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return { kind: 'failed', code: typeof e.code === 'string' ? e.code : null, message: String(e.message ?? err) }
  }
  if (read.kind !== 'ok') return read
  const hash = sha256(read.bytes)
  const sizeBytes = read.bytes.length
  if (hash === input.unchangedIf) return { kind: 'unchanged', sha256: hash, sizeBytes }
  const decoded = decodeText(read.bytes)
  if (decoded.length > THERE_MAX_CHARS) return { kind: 'text', sha256: hash, sizeBytes, text: decoded }
  const transcript = input.file.source === 'sessions' ? transcriptText(decoded) : null
  const text = transcript ? transcript.text : decoded
  const made = await prepareText({ ...input.file, text, sha256: hash, sizeBytes }, input.chunking, slicer)
  // Where to scan entries from next time is a second copy of the file's text to send back, on
  // every file of a first sync; the first append to the file scans them whole instead.
  const prepared = { ...made, checkpoint: { ...made.checkpoint, entryScan: null } }
  return { kind: 'prepared', sha256: hash, sizeBytes, prepared, malformedLines: transcript?.malformed ?? 0 }
}
