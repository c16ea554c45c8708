import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config/load-config.js'
import { needsDimsProbe, probeDelayMs } from './probe-dims.js'

describe('probeDelayMs: background probes of an embedding server that did not answer', () => {
  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [5, 32_000],
    [6, 60_000],
    [7, 60_000],
    [1000, 60_000],
  ])('attempt %i waits %i ms', (attempt, ms) => {
    expect(probeDelayMs(attempt)).toBe(ms)
  })
})

describe('needsDimsProbe', () => {
  const base = { MNEMO_EMBED_PROVIDER: 'openai', MNEMO_EMBED_BASE_URL: 'http://127.0.0.1:11434/v1' }
  it.each([
    [{ MNEMO_EMBED_MODEL: 'nomic-embed-text:v1.5' }, true],
    [{ MNEMO_EMBED_MODEL: 'nomic-embed-text:v1.5', MNEMO_EMBED_DIMENSIONS: '768' }, false],
    [{ MNEMO_EMBED_MODEL: 'text-embedding-v4' }, false],
    [{}, false],
  ])('%j → %s', (env, expected) => {
    expect(needsDimsProbe(loadConfig({ ...base, ...env }, '/srv').embedding)).toBe(expected)
  })

  it('is never needed without an OpenAI-compatible provider', () => {
    expect(needsDimsProbe(loadConfig({ MNEMO_EMBED_PROVIDER: 'hash' }, '/srv').embedding)).toBe(false)
  })
})
