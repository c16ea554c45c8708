import { describe, expect, it } from 'vitest'
import { planSearch, type SearchedIndex } from './search-plan.js'
import type { SearchRequest } from './types.js'

const SETTINGS = { maxResults: 6, minScore: 0.3, maxCandidates: 200, candidateMultiplier: 4 }

const target = (pathPrefix: string, privateMemoryFile = pathPrefix === ''): SearchedIndex => ({
  space: pathPrefix === '' ? 'agent' : 'team',
  pathPrefix,
  privateMemoryFile,
  reader: { keyword: async () => [], vector: async () => [], texts: async () => new Map() },
  vectorsReady: () => true,
  onSearch: () => undefined,
})

const plan = (req: Omit<SearchRequest, 'query'>, targets = [target('')]) =>
  planSearch({ query: 'deploy window', ...req }, targets, SETTINGS)

describe('planSearch', () => {
  it.each([
    { req: {}, maxResults: 6, limit: 24 },
    { req: { maxResults: 10 }, maxResults: 10, limit: 40 },
    // A token budget without a count lets the budget decide, candidates capped.
    { req: { maxTokens: 500 }, maxResults: 100, limit: 200 },
    { req: { maxTokens: 500, maxResults: 3 }, maxResults: 3, limit: 12 },
  ])('$req → $maxResults results from $limit candidates', ({ req, maxResults, limit }) => {
    const p = plan(req)
    expect(p.maxResults).toBe(maxResults)
    expect(p.limit).toBe(limit)
  })

  it('takes the request minScore over the setting, 0 included', () => {
    expect(plan({}).minScore).toBe(0.3)
    expect(plan({ minScore: 0 }).minScore).toBe(0)
  })

  it('analyses the query unless the search is by vector alone', () => {
    expect(plan({}).terms.length).toBeGreaterThan(0)
    expect(plan({ mode: 'vector' })).toMatchObject({ requested: 'vector', terms: [], names: [] })
  })

  it('filters each index by the part of pathPrefix that is its own, and leaves out one it cannot match', () => {
    const [own, team] = plan({ pathPrefix: 'team/notes/' }, [target(''), target('team/')]).targets
    expect(own?.filters).toMatchObject({ pathPrefix: 'team/notes/' })
    expect(team?.filters).toMatchObject({ pathPrefix: 'notes/' })
    const onlyOwn = plan({ pathPrefix: 'memory/' }, [target(''), target('team/')]).targets
    expect(onlyOwn[1]?.filters).toBeNull()
  })

  it('leaves MEMORY.md out of a shared-scope search only where it is private', () => {
    const [own, team] = plan({ scope: 'shared' }, [target(''), target('team/')]).targets
    expect(own?.filters?.excludeMemoryFile).toBe(true)
    expect(team?.filters?.excludeMemoryFile).toBe(false)
  })

  it('filters by source only when the request names exactly one', () => {
    expect(plan({ sources: ['memory'] }).targets[0]?.filters?.source).toBe('memory')
    expect(plan({ sources: ['memory', 'sessions'] }).targets[0]?.filters?.source).toBeUndefined()
  })

  it('refuses a bad time range with 400 VALIDATION_FAILED', () => {
    expect(() => plan({ after: '2026-03-02', before: '2026-03-01' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    )
  })
})
