/**
 * The one line model every part of mnemo shares (chunker, file windows, results):
 * lines are split on `\n`, a trailing `\r` is dropped, and a final newline does not start
 * an extra empty line. Line numbers are 1-based.
 */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1)
  }
  return lines
}

/**
 * splitLines(text).length without building the lines: the count of `\n`, plus one for a
 * last line without one. Cheap on a file of megabytes.
 */
export function countLines(text: string): number {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

/** The newline bytes in UTF-8 `bytes` (a `\n` is never part of another character's bytes). */
export function countNewlines(bytes: Uint8Array): number {
  let n = 0
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++
  return n
}

/** countLines of UTF-8 `bytes`, without decoding them. */
export const countLinesIn = (bytes: Uint8Array): number =>
  countNewlines(bytes) + (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? 1 : 0)

/** Decodes file bytes as UTF-8 (invalid bytes become U+FFFD) and drops a leading BOM. */
export function decodeText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
