import { describe, expect, it } from 'vitest'
import { loggedUrl } from './request-log.js'

describe('loggedUrl', () => {
  it.each([
    ['/search', '/search'],
    ['/files/MEMORY.md?from=2&lines=3', '/files/MEMORY.md?from=2&lines=3'],
    ['/search?token=abc123', '/search?token=[redacted]'],
    ['/x?a=1&access_token=s3cr3t&b=2', '/x?a=1&access_token=[redacted]&b=2'],
    ['/x?api_key=k&apiKey=k2&KEY=k3', '/x?api_key=[redacted]&apiKey=[redacted]&KEY=[redacted]'],
    ['/x?password=p#frag', '/x?password=[redacted]#frag'],
    ['/files/token=x.md', '/files/token=x.md'],
  ])('%s → %s', (url, logged) => {
    expect(loggedUrl(url)).toBe(logged)
  })
})
