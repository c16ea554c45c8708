/** Tar archives for import and export tests, written and read with tar-stream (names as given, `..` and all). */
import tar from 'tar-stream'

export type TarEntry = Parameters<tar.Pack['entry']>[0] & { body?: string | Buffer }

/** A tar archive of `entries`. */
export async function makeTar(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  pack.on('data', (c: unknown) => void chunks.push(c as Buffer))
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()))
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) =>
      body === undefined
        ? pack.entry(header, (err) => (err ? reject(err) : resolve()))
        : pack.entry(header, body, (err) => (err ? reject(err) : resolve())),
    )
  }
  pack.finalize()
  await ended
  return Buffer.concat(chunks)
}

/** The files of an archive: name → content. */
export async function untar(archive: Buffer): Promise<Map<string, { text: string; mtime: Date | undefined }>> {
  const files = new Map<string, { text: string; mtime: Date | undefined }>()
  const extract = tar.extract()
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = []
      for await (const c of entry as unknown as AsyncIterable<Buffer>) chunks.push(c)
      files.set(entry.header.name, { text: Buffer.concat(chunks).toString('utf8'), mtime: entry.header.mtime })
    }
  })()
  extract.end(archive)
  await done
  return files
}
