import { describe, expect, it } from 'vitest'
import { createLogger } from '../shared/logger.js'
import { createProgress, PROGRESS_LOG_MS } from './sync-progress.js'

describe('sync progress', () => {
  it('counts files and chunks and logs at most once per PROGRESS_LOG_MS', () => {
    const lines: string[] = []
    const log = createLogger({ level: 'info' }, { write: (l) => void lines.push(l) })
    let now = 0
    const p = createProgress({ full: true, reason: 'api', log, now: () => now })
    expect(p.snapshot()).toMatchObject({ phase: 'scanning', filesDone: 0, filesTotal: 0 })
    p.files(3)
    for (let i = 0; i < 3; i++) {
      now += PROGRESS_LOG_MS / 2
      p.fileDone()
    }
    p.toEmbed(10)
    p.embedded(4)
    expect(p.snapshot()).toMatchObject({
      phase: 'indexing',
      filesDone: 3,
      filesTotal: 3,
      chunksEmbedded: 4,
      chunksToEmbed: 10,
    })
    // 7.5 s of work: one line at 5 s.
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; filesDone: number })
    expect(logged.map((l) => [l.msg, l.filesDone])).toEqual([['sync progress', 2]])
    now += PROGRESS_LOG_MS
    p.phase('embedding')
    expect(lines).toHaveLength(2)
  })
})
