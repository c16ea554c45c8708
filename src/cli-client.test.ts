import { describe, expect, it } from 'vitest'
import { parseCitation, progressLine, statusText } from './cli-client.js'

const base = { full: true, reason: 'api', startedAt: '2026-11-23T00:00:00.000Z', chunksEmbedded: 0, chunksToEmbed: 0 }

describe('progressLine', () => {
  it.each([
    [{ ...base, phase: 'scanning', filesDone: 0, filesTotal: 0 }, '[..........] scanning 0/0 files'],
    [{ ...base, phase: 'indexing', filesDone: 5, filesTotal: 20 }, '[###.......] indexing 5/20 files'],
    [
      { ...base, phase: 'embedding', filesDone: 20, filesTotal: 20, chunksEmbedded: 40, chunksToEmbed: 90 },
      '[##########] embedding 20/20 files, 40/90 chunks embedded',
    ],
  ] as const)('%j → %s', (progress, line) => {
    expect(progressLine(progress, 10)).toBe(line)
  })
})

describe('statusText', () => {
  const index = {
    files: 5,
    chunks: 9,
    sources: { memory: { files: 5, chunks: 9 }, sessions: { files: 0, chunks: 0 } },
    embedding: { provider: 'openai', model: 'text-embedding-v4', dims: null, state: 'pending', error: 'ECONNREFUSED' },
    vectorBackend: 'none',
    vectorsPending: 9,
    engine: { kind: 'sqlite', ok: true },
    keywordTokenizer: 'mnemo-3',
    dirty: false,
    watching: true,
    watch: { state: 'rescanning', reason: 'ENOSPC', rescanEveryMs: 30_000 },
    syncing: false,
    rebuilding: false,
    queued: false,
    completedSyncs: 1,
    progress: null,
    lastSync: {
      at: '2026-11-26T10:00:00.000Z',
      ok: false,
      full: false,
      reason: 'startup',
      durationMs: 12.4,
      error: 'EACCES',
    },
  } as const

  it('names what keeps it from being ready, and what degrades search', () => {
    const ready = {
      ready: false,
      checks: {
        index: 'open',
        initialSync: 'done',
        lastSync: 'failed',
        folder: 'held',
        workspace: 'read-only',
        embedder: 'pending',
        engine: 'sqlite',
        database: 'ok',
      },
    } as const
    expect(statusText('http://127.0.0.1:8787', ready, index).split('\n')).toEqual([
      'mnemo at http://127.0.0.1:8787: not ready (lastSync failed, workspace read-only, embedder pending)',
      'index: 5 files, 9 chunks on sqlite',
      'search: hybrid, embeddings openai text-embedding-v4, pending: ECONNREFUSED; 9 chunks waiting for a vector',
      'watch: rescanning (ENOSPC)',
      'sync: idle; last failed: EACCES at 2026-11-26T10:00:00.000Z in 12 ms',
    ])
  })
})

describe('parseCitation', () => {
  it.each([
    ['MEMORY.md#L3-L4', { path: 'MEMORY.md', startLine: 3, endLine: 4 }],
    ['memory/2026-11-28.md#L7', { path: 'memory/2026-11-28.md', startLine: 7, endLine: 7 }],
    ['MEMORY.md:3-5', { path: 'MEMORY.md', startLine: 3, endLine: 5 }],
    ['MEMORY.md', null],
    ['MEMORY.md#L0', null],
    ['MEMORY.md#L5-L3', null],
  ])('%s', (text, expected) => {
    expect(parseCitation(text)).toEqual(expected)
  })
})
