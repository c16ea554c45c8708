import { describe, expect, it } from 'vitest'
import type { SearchHit, SearchResponse } from '../search/types.js'
import type { Space } from '../shared/agent-id.js'
import { citation, deleteText, flushText, getText, listText, replaceText, searchText, writeText } from './tool-text.js'

const response = (results: SearchResponse['results'], degraded?: SearchResponse['degraded']): SearchResponse => ({
  results,
  mode: 'keyword',
  ...(degraded && { degraded }),
  usage: { embeddingTokens: 0, rerankTokens: 0, resultTokens: 0 },
  timingsMs: { keyword: 1, embed: 0, vector: 0, rerank: 0, total: 1 },
})
const hit = (
  path: string,
  startLine: number,
  endLine: number,
  space: Space = 'agent',
  entry: Partial<Pick<SearchHit, 'status' | 'observed' | 'key' | 'origin'>> = {},
): SearchHit => ({
  path,
  startLine,
  endLine,
  snippet: `text of ${path}`,
  score: 0.8123,
  textScore: 1,
  vectorScore: 0,
  source: 'memory' as const,
  space,
  status: 'active',
  observed: null,
  key: null,
  origin: null,
  ...entry,
})

describe('MCP tool text', () => {
  it.each([
    ['memory/a.md', 3, 7, 'memory/a.md#L3-L7'],
    ['MEMORY.md', 4, 4, 'MEMORY.md#L4'],
  ])('cites %s lines %i–%i as %s', (path, from, to, expected) => {
    expect(citation(path, from, to)).toBe(expected)
  })

  it('says how many passages were shortened to keep the answer small', () => {
    const res = { ...response([hit('memory/a.md', 1, 2)]), snippetsShortened: 3 }
    expect(searchText('db', res)).toContain(
      '(3 passages shortened to keep this answer small; read them with memory_get.)',
    )
  })

  it('marks a superseded entry and names an origin, so the model reads history as history', () => {
    const text = searchText(
      'db host',
      response([
        hit('MEMORY.md', 7, 7, 'agent', { origin: 'owner' }),
        hit('MEMORY.md', 4, 4, 'agent', { status: 'superseded', observed: '2026-05-10' }),
      ]),
    )
    expect(text).toContain('[1] MEMORY.md#L7 (score 0.81, from owner)')
    expect(text).toContain('[2] MEMORY.md#L4 (score 0.81, superseded (observed 2026-05-10))')
  })

  it('lists search hits best first with citations, scores and the team and granted labels', () => {
    const text = searchText(
      'db',
      response([
        hit('memory/a.md', 1, 2),
        hit('team/MEMORY.md', 5, 5, 'team'),
        hit('agents/coder/MEMORY.md', 1, 1, 'agent:coder'),
      ]),
    )
    expect(text).toBe(
      '3 memories for "db", best first:\n\n' +
        '[1] memory/a.md#L1-L2 (score 0.81)\ntext of memory/a.md\n\n' +
        '[2] team/MEMORY.md#L5 (score 0.81, team memory)\ntext of team/MEMORY.md\n\n' +
        '[3] agents/coder/MEMORY.md#L1 (score 0.81, memory of agent "coder")\ntext of agents/coder/MEMORY.md',
    )
  })

  it('says plainly that nothing is remembered, and why a search was degraded', () => {
    expect(searchText('helm', response([]))).toBe('No memory matches "helm": nothing relevant is remembered.')
    expect(searchText('helm', response([], { vector: 'timeout' }))).toContain('vector search unavailable, timeout')
  })

  it('cites a read window with the hash memory_replace needs, and says when it is past the end', () => {
    const file = { path: 'memory/a.md', from: 2, to: 3, totalLines: 9, text: 'b\nc', sha256: 'ab12' }
    expect(getText(file)).toBe('memory/a.md#L2-L3 (of 9 lines, sha256 ab12):\nb\nc')
    expect(getText({ ...file, from: 12, to: 11, text: '' })).toBe(
      'memory/a.md has 9 lines; nothing from line 12 on (sha256 ab12).',
    )
  })

  it('lists files one a line, and says when there are none', () => {
    const file = {
      path: 'MEMORY.md',
      source: 'memory' as const,
      space: 'agent' as const,
      sizeBytes: 120,
      mtime: '2026-03-01T10:00:00.000Z',
      sha256: 'x',
      chunks: 1,
      lines: 4,
    }
    expect(listText({ files: [] })).toBe('No memory files yet.')
    expect(listText({ files: [file, { ...file, path: 'team/MEMORY.md', space: 'team' }] })).toBe(
      '2 memory files:\nMEMORY.md (4 lines, 120 bytes, modified 2026-03-01T10:00:00.000Z)\n' +
        'team/MEMORY.md (4 lines, 120 bytes, modified 2026-03-01T10:00:00.000Z)',
    )
  })

  it('reports writes and flushes by citation, replays and pending indexing included', () => {
    const written = {
      path: 'MEMORY.md',
      sha256: 'x',
      sizeBytes: 1,
      totalLines: 4,
      startLine: 3,
      endLine: 4,
      created: false,
    }
    expect(writeText({ ...written, indexed: true })).toBe('Appended MEMORY.md#L3-L4 (searchable now).')
    expect(writeText({ ...written, indexed: false })).toContain('at the next sync')
    const replaced = { ...written, startLine: 1, indexed: true }
    expect(replaceText(replaced)).toBe('Replaced MEMORY.md#L1-L4 (sha256 x).')
    expect(replaceText({ ...replaced, endLine: 0, indexed: false })).toBe(
      'MEMORY.md is now empty (sha256 x; it becomes searchable at the next sync).',
    )
    expect(deleteText({ path: 'MEMORY.md', deleted: true, indexed: true })).toBe('Deleted MEMORY.md.')
    const flushed = { indexed: true, path: 'memory/d.md', startLine: 5, endLine: 7, replayed: false }
    expect(flushText(flushed)).toBe('Saved memory/d.md#L5-L7.')
    expect(flushText({ ...flushed, replayed: true })).toContain('Already saved earlier as memory/d.md#L5-L7')
    expect(flushText({ indexed: true, drained: true })).toContain('Nothing to save')
  })
})
