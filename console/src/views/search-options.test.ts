import { describe, expect, it } from 'vitest'
import { requestOf } from './search-options.js'

describe('requestOf', () => {
  it('leaves out empty options, so the service defaults apply', () => {
    expect(requestOf('deploy', { mode: '', minScore: '', datedOnly: false, spaces: ' , ' })).toEqual({
      query: 'deploy',
    })
  })

  it('turns numbers, lists, booleans and the rerank choice into the request', () => {
    expect(
      requestOf('部署', {
        mode: 'keyword',
        maxResults: '3',
        minScore: '0.2',
        spaces: 'agent, team',
        includeSuperseded: true,
        rerank: 'false',
        after: '2026-01-01',
      }),
    ).toEqual({
      query: '部署',
      mode: 'keyword',
      maxResults: 3,
      minScore: 0.2,
      spaces: ['agent', 'team'],
      includeSuperseded: true,
      rerank: false,
      after: '2026-01-01',
    })
  })
})
