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

/** Decodes file bytes as UTF-8 (invalid bytes become U+FFFD) and drops a leading BOM. */
export function decodeText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
