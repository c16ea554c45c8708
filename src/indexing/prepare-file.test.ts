import { describe, expect, it } from 'vitest'
import { prepareFile } from './prepare-file.js'

describe('prepareFile', () => {
  it('offers the event loop a turn after every piece of a huge single-line file and every chunk', async () => {
    const words = ['alpha', 'beta', '模型', '升级', 'qwen-max', 'POSTGRES_URL', 'deploy', '部署']
    const parts: string[] = []
    for (let n = 0; parts.length < 200_000; n++) parts.push(words[n % words.length] as string)
    const text = parts.join(' ')
    // Chunking one long line used to hold the loop for seconds: each piece of the line (one
    // chunk each) must be followed by a chance to yield, in the chunker and in the analysis;
    // when a turn is taken is the slicer's business (shared/async.ts: after 8 ms of work).
    // Counting the offers keeps this test free of wall-clock timing.
    let offers = 0
    const prepared = await prepareFile(
      { rel: 'memory/huge.md', text, sha256: 'x', sizeBytes: text.length, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      { maxTokens: 400, overlapTokens: 80 },
      { maybeYield: async () => void offers++ },
    )
    expect(prepared.chunks.length).toBeGreaterThan(500)
    expect(prepared.chunks.every((c) => c.startLine === 1 && c.endLine === 1)).toBe(true)
    expect(offers).toBeGreaterThanOrEqual(2 * prepared.chunks.length)
  })
})
