/**
 * The service as a child process, killed with SIGKILL mid-rebuild and mid-append, and
 * stopped with SIGTERM mid-write: after a restart it serves a whole index (the old or the
 * new), and every write it acknowledged is on disk, intact and searchable.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { postJson } from '../helpers/post-json.js'
import { waitFor } from '../helpers/wait-for.js'

type Hit = { path: string; startLine: number; endLine: number }
type FlushAck = { path: string; startLine: number; endLine: number }

const services: ServiceProcess[] = []
const dirs: string[] = []
afterEach(() => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-crash-')))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, 'workspace', 'memory'), { recursive: true })
  return dir
}

function start(dir: string, env: Record<string, string> = {}) {
  const proc = startService({ MNEMO_WATCH: 'false', ...env }, dir)
  services.push(proc)
  return proc
}

const search = async (url: string, query: string) =>
  (await postJson<{ results: Hit[] }>(`${url}/search`, { query, maxResults: 20 })).body.results

/** A workspace large enough that a rebuild takes a while (60 files, 36,000 lines). */
function writeLargeWorkspace(dir: string): void {
  for (let d = 1; d <= 60; d++) {
    const lines = Array.from({ length: 600 }, (_, i) => `- note ${i} on project ${d} about 记忆 ${i % 40}`)
    fs.writeFileSync(path.join(dir, 'workspace', 'memory', `file-${d}.md`), `# File ${d}\n${lines.join('\n')}\n`)
  }
  fs.writeFileSync(path.join(dir, 'workspace', 'MEMORY.md'), '# Facts\nThe lighthouse keeper is called Ingrid.\n')
}

const rebuildTemps = (dir: string) => fs.readdirSync(path.join(dir, '.mnemo')).filter((f) => f.includes('.rebuild'))

describe('crash safety', () => {
  it.each([30, 250, 700])(
    'serves a whole index after SIGKILL %i ms into a rebuild',
    async (delayMs) => {
      const dir = tempDir()
      writeLargeWorkspace(dir)
      const first = start(dir)
      const url = await first.ready()
      const before = await search(url, 'lighthouse Ingrid')
      expect(before.map((h) => h.path)).toEqual(['MEMORY.md'])
      const rebuild = await postJson<{ rebuilding: boolean }>(`${url}/index`, { full: true })
      expect(rebuild.status).toBe(202)
      await new Promise((r) => setTimeout(r, delayMs))
      const midRebuild = rebuildTemps(dir).length > 0
      first.kill('SIGKILL')
      await first.exited

      const second = start(dir)
      const again = await second.ready()
      expect(rebuildTemps(dir)).toEqual([])
      expect(await search(again, 'lighthouse Ingrid')).toEqual(before)
      const status = (await (await fetch(`${again}/index`)).json()) as { files: number }
      expect(status.files).toBe(61)
      // The shortest delay surely caught the rebuild half-way (its temp file is created first).
      if (delayMs === 30) expect(midRebuild).toBe(true)
      second.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    },
    60_000,
  )

  it('keeps every acknowledged flush, whole and searchable, after SIGKILL mid-append', async () => {
    const dir = tempDir()
    const first = start(dir)
    const url = await first.ready()
    const acked = new Map<string, FlushAck>()
    let stop = false
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const id = `c${c}-n${i}`
        try {
          const res = await postJson<FlushAck>(`${url}/flush`, {
            entries: [`- client ${c} note ${i} token zx${c}q${i}`, `- second line of ${id}`],
            date: '2026-02-16',
            flushId: id,
          })
          if (res.status === 200) acked.set(id, res.body)
        } catch {
          return // the connection died with the process
        }
      }
    }
    const clients = Array.from({ length: 4 }, (_, c) => client(c))
    await waitFor(() => (acked.size >= 100 ? true : undefined), 30_000)
    first.kill('SIGKILL')
    stop = true
    await first.exited
    await Promise.all(clients)

    const second = start(dir)
    const again = await second.ready()
    const text = fs.readFileSync(path.join(dir, 'workspace', 'memory', '2026-02-16.md'), 'utf8')
    const lines = text.split('\n')
    // Whole entries only: each heading is followed by its marker and both note lines.
    const headings = lines.flatMap((l, i) => (l.startsWith('## ') ? [i] : []))
    for (const h of headings) {
      const m = /^<!-- mnemo:flush id=(c\d+-n\d+) lines=2 -->$/.exec(lines[h + 1] ?? '')
      expect(m, `line ${h + 2}`).not.toBeNull()
      expect(lines[h + 3]).toBe(`- second line of ${m![1]}`)
    }
    for (const [id, ack] of acked) {
      expect(lines[ack.startLine], id).toBe(`<!-- mnemo:flush id=${id} lines=2 -->`)
      expect(lines[ack.endLine - 1], id).toBe(`- second line of ${id}`)
    }
    // Acknowledged notes are searchable after the restart (a sample keeps the test short).
    for (const id of [...acked.keys()].filter((_, i) => i % 10 === 0)) {
      const [, c, n] = /^c(\d+)-n(\d+)$/.exec(id)!
      const hits = await search(again, `zx${c}q${n}`)
      expect(
        hits.some((h) => h.startLine <= acked.get(id)!.endLine && h.endLine >= acked.get(id)!.startLine),
        id,
      ).toBe(true)
    }
    // A retry of an acknowledged flush after the crash (the same notes) appends nothing.
    const [someId, someAck] = [...acked.entries()][0]!
    const [, c0, n0] = /^c(\d+)-n(\d+)$/.exec(someId)!
    const retry = await postJson<FlushAck & { replayed: boolean }>(`${again}/flush`, {
      entries: [`- client ${c0} note ${n0} token zx${c0}q${n0}`, `- second line of ${someId}`],
      date: '2026-02-16',
      flushId: someId,
    })
    expect(retry.body).toMatchObject({ ...someAck, replayed: true })
  }, 60_000)

  it('cancels a running rebuild on SIGTERM, deleting its temp file, and exits 0 in time', async () => {
    const dir = tempDir()
    writeLargeWorkspace(dir)
    const first = start(dir)
    const url = await first.ready()
    expect((await postJson(`${url}/index`, { full: true })).status).toBe(202)
    await waitFor(() => (rebuildTemps(dir).length > 0 ? true : undefined))
    const startedAt = Date.now()
    first.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(Date.now() - startedAt).toBeLessThan(10_000)
    expect(rebuildTemps(dir)).toEqual([])
    const second = start(dir)
    expect(await search(await second.ready(), 'lighthouse Ingrid')).toHaveLength(1)
  }, 60_000)

  it('finishes in-flight writes and exits 0 on SIGTERM', async () => {
    const dir = tempDir()
    const first = start(dir)
    const url = await first.ready()
    const results: Promise<{ status: number } | 'refused'>[] = []
    for (let i = 0; i < 40; i++) {
      results.push(postJson(`${url}/files/memory/term.md`, { content: `line ${i}` }).catch(() => 'refused' as const))
    }
    const termFile = path.join(dir, 'workspace', 'memory', 'term.md')
    await waitFor(() => (fs.existsSync(termFile) ? true : undefined))
    const startedAt = Date.now()
    first.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(Date.now() - startedAt).toBeLessThan(10_000)
    const settled = await Promise.all(results)
    const ok = settled.filter((r) => r !== 'refused' && r.status === 200).length
    const written = fs.readFileSync(termFile, 'utf8').split('\n').filter(Boolean)
    // Appends the server took were finished and answered; the rest were refused whole.
    expect(ok).toBeGreaterThan(0)
    expect(written).toHaveLength(ok)
    for (const line of written) expect(line).toMatch(/^line \d+$/)
  }, 60_000)
})
