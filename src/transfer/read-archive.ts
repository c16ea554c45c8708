/**
 * Reads a tar archive (POST /import) entry by entry into memory, with tar-stream, and
 * checks each entry as it arrives, so a bad archive is refused at its first bad entry and
 * nothing has been written yet: the caller writes only after the whole archive was read.
 * Caps: the body's bytes (`maxBodyBytes`), each file's (`maxFileBytes`, checked from the
 * header before its data is read). Only regular files (and folders, which carry nothing)
 * are taken; a body that does not end with tar's end-of-archive marker was cut short.
 */
import { Transform, type Readable } from 'node:stream'
import tar from 'tar-stream'
import { appError, isAppError } from '../shared/errors.js'
import { hasNul } from '../files/content-rules.js'

/** One file of an archive, its name as the archive spells it (`./` prefixes removed). */
export type ArchiveFile = { name: string; bytes: Buffer; mtimeMs: number }

export type ReadArchiveLimits = { maxBodyBytes: number; maxFileBytes: number }

/** Bytes of a tar block. The end-of-archive marker is two blocks of zeros; one is required. */
const BLOCK_BYTES = 512

const refused = (name: string, reason: string) =>
  appError('ARCHIVE_ENTRY_INVALID', `Archive entry "${name}": ${reason}`, { details: { entry: name, reason } })

/** Whether an entry is a file or a folder; any other type (links, devices, FIFOs) is refused. */
function checkType(name: string, type: string | null | undefined): 'file' | 'directory' {
  if (type === 'file' || type === 'contiguous-file') return 'file'
  if (type === 'directory') return 'directory'
  const what = type === 'symlink' || type === 'link' ? `${type === 'link' ? 'hard ' : 'symbolic '}link` : type
  throw refused(name, `only regular files can be imported, not a ${what ?? 'entry of unknown type'}`)
}

/** The name without `./` prefixes and (for folders) a trailing slash; tar writes both. */
function plainName(raw: string): string {
  let name = raw
  while (name.startsWith('./')) name = name.slice(2)
  return name.endsWith('/') ? name.slice(0, -1) : name
}

/** Largest time a Date holds, in ms either side of 1970. */
const MAX_DATE_MS = 8.64e15
/** A PAX time: decimal seconds, maybe negative, maybe with a fraction. */
const PAX_SECONDS = /^-?\d+(?:\.\d+)?$/

/**
 * The entry's modification time in ms: its PAX `mtime` record (seconds; an export writes one
 * for a time the header cannot hold), else the header's. One that does not parse (octal with
 * 8s and 9s) or lies past what a Date holds (year 275760) is refused: the file's time could
 * not be set after it was written.
 */
function mtimeOf(name: string, header: tar.Header): number {
  // tar-stream's types leave the PAX records unknown: they are strings by key.
  const pax = (header.pax as Record<string, string> | null | undefined)?.mtime
  const ms =
    pax === undefined ? (header.mtime?.getTime() ?? Date.now()) : PAX_SECONDS.test(pax) ? Number(pax) * 1000 : NaN
  if (!(Math.abs(ms) <= MAX_DATE_MS)) throw refused(name, 'its modification time is not a date')
  return ms
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true })

/** Throws unless the file is UTF-8 text without NUL (what the write API stores). */
function checkText(name: string, bytes: Buffer): void {
  let text: string
  try {
    text = FATAL_UTF8.decode(bytes)
  } catch {
    throw refused(name, 'not UTF-8 text')
  }
  if (hasNul(text)) throw refused(name, 'holds NUL characters')
}

/**
 * Counts the body's bytes (PAYLOAD_TOO_LARGE past the cap) and keeps its last block, which
 * must be zeros: the end-of-archive marker.
 */
function bodyMeter(maxBodyBytes: number) {
  let seen = 0
  let tail = Buffer.alloc(0)
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > maxBodyBytes) {
        done(appError('PAYLOAD_TOO_LARGE', `The archive is larger than this route accepts (${maxBodyBytes} bytes)`))
        return
      }
      tail = Buffer.concat([tail, chunk]).subarray(-BLOCK_BYTES)
      done(null, chunk)
    },
  })
  return {
    meter,
    bytes: () => seen,
    endsWithMarker: () => tail.length === BLOCK_BYTES && tail.every((b) => b === 0),
  }
}

/** Reads one entry's data (its header said how much: checked against the cap before). */
async function readData(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/**
 * Every file of the archive in `body`, checked: regular files only, a name at most once
 * and never also the folder of another file, each at most `maxFileBytes` of UTF-8 text
 * without NUL. `checkName` checks (and may map) a file's name; it runs before the file's
 * data is read. Throws ARCHIVE_INVALID, ARCHIVE_ENTRY_INVALID, PAYLOAD_TOO_LARGE or what
 * `checkName` throws.
 */
export async function readArchive<T>(
  body: Readable,
  limits: ReadArchiveLimits,
  checkName: (name: string, kind: 'file' | 'directory') => T | null,
): Promise<(ArchiveFile & { target: T })[]> {
  const meter = bodyMeter(limits.maxBodyBytes)
  const extract = tar.extract()
  // Piped by hand, not with pipeline(): on a refusal the request must stay open for the
  // answer (pipeline would destroy it, and its socket). The route closes the connection.
  const fail = (err: unknown) => extract.destroy(err instanceof Error ? err : new Error(String(err)))
  body.on('error', fail)
  // A client that goes away mid-body: without this the read would wait for the rest forever.
  body.once('close', () => {
    if (!body.readableEnded) fail(new Error('the body ended before the archive did'))
  })
  meter.meter.on('error', fail)
  body.pipe(meter.meter).pipe(extract)
  const files: (ArchiveFile & { target: T })[] = []
  const names = new Set<string>()
  try {
    for await (const entry of extract) {
      const header = entry.header
      const name = plainName(header.name)
      const kind = checkType(header.name, header.type)
      const target = name === '' && kind === 'directory' ? null : checkName(name, kind)
      if (kind === 'directory' || target === null) {
        entry.resume()
        continue
      }
      if (names.has(name)) throw refused(header.name, 'the archive holds this name twice')
      names.add(name)
      const size = header.size ?? 0
      if (size > limits.maxFileBytes) {
        throw appError(
          'PAYLOAD_TOO_LARGE',
          `Archive entry "${header.name}" (${size} bytes) is larger than MNEMO_MAX_FILE_BYTES (${limits.maxFileBytes})`,
          { details: { entry: header.name, sizeBytes: size } },
        )
      }
      // streamx streams are async iterables of their chunks; its types do not say so.
      const bytes = await readData(entry as unknown as AsyncIterable<Buffer>)
      checkText(header.name, bytes)
      files.push({ name, bytes, target, mtimeMs: mtimeOf(header.name, header) })
    }
  } catch (err) {
    body.unpipe(meter.meter)
    meter.meter.destroy()
    extract.destroy()
    throw isAppError(err) ? err : notTar(err)
  }
  if (meter.bytes() === 0) throw appError('ARCHIVE_INVALID', 'The body is empty: send a tar archive')
  if (!meter.endsWithMarker()) {
    throw appError('ARCHIVE_INVALID', 'The archive is cut short: it does not end with the end-of-archive marker')
  }
  checkNoFileIsAFolder(files)
  return files
}

/** Throws when a file's name is also the folder of another file (`a.md`, `a.md/b.md`): both cannot be written. */
function checkNoFileIsAFolder(files: readonly { name: string }[]): void {
  const names = new Set(files.map((f) => f.name))
  for (const { name } of files) {
    for (let at = name.indexOf('/'); at > 0; at = name.indexOf('/', at + 1)) {
      const folder = name.slice(0, at)
      if (names.has(folder)) throw refused(folder, `a file, and the folder of "${name}"`)
    }
  }
}

function notTar(err: unknown): Error {
  const reason = err instanceof Error ? err.message : String(err)
  return appError('ARCHIVE_INVALID', `The body is not a whole tar archive (uncompressed): ${reason}`, { cause: err })
}
