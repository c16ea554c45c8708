import { describe, expect, it } from 'vitest'
import { createSlicer } from '../shared/async.js'
import { prepareFile } from './prepare-file.js'

describe('prepareFile', () => {
  it('chunks and analyses an 8 MB single-line file in slices, never holding the event loop long', async () => {
    const words = ['alpha', 'beta', '模型', '升级', 'qwen-max', 'POSTGRES_URL', 'deploy', '部署']
    const parts: string[] = []
    for (let n = 0; parts.length < 1_100_000; n++) parts.push(words[n % words.length] as string)
    const text = parts.join(' ')
    // The longest time between two turns of a 5 ms timer. Chunking this one line used to
    // hold the loop for about 2 s.
    let last = performance.now()
    let longestGapMs = 0
    const ticker = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, performance.now() - last)
      last = performance.now()
    }, 5)
    await new Promise((resolve) => setTimeout(resolve, 20))
    const prepared = await prepareFile(
      { rel: 'memory/huge.md', text, sha256: 'x', sizeBytes: text.length, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      { maxTokens: 400, overlapTokens: 80 },
      createSlicer(8),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    clearInterval(ticker)
    expect(prepared.chunks.length).toBeGreaterThan(5000)
    expect(prepared.chunks.every((c) => c.startLine === 1 && c.endLine === 1)).toBe(true)
    expect(longestGapMs).toBeLessThan(250)
  })
})
