import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

describe('GET /index progress', () => {
  it('shows the running sync: phase, files done of total, chunks embedded; null when idle', async () => {
    const embedder = createFakeEmbedder()
    const t = await useTestApp({ corpus: true, sync: false, overrides: { embedder: embedder.provider } })
    const status = async () => (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
    expect((await status()).progress).toBeNull()
    embedder.slow(300)
    expect((await t.app.inject({ method: 'POST', url: '/index', payload: { full: true } })).statusCode).toBe(202)
    const running = await waitFor(async () => {
      const s = await status()
      return s.progress && s.progress.chunksToEmbed > 0 ? s.progress : undefined
    })
    expect(running).toMatchObject({ phase: 'indexing', filesTotal: 5 })
    expect(running.filesDone).toBeLessThanOrEqual(running.filesTotal)
    expect(running.chunksEmbedded).toBeLessThanOrEqual(running.chunksToEmbed)
    embedder.slow(0)
    const done = await waitFor(async () => {
      const s = await status()
      return s.progress === null && s.lastSync ? s : undefined
    })
    expect(done.lastSync?.ok).toBe(true)
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    const embedded = Number(/^mnemo_embedded_chunks_total (\d+)$/m.exec(metrics)?.[1])
    expect(embedded).toBeGreaterThan(0)
    expect(embedded).toBe(embedder.texts.length)
  })
})
