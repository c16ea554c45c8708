import { describe, expect, it } from 'vitest'
import { flushIdOf, flushOf } from './flush.js'

describe('flushOf', () => {
  it.each([
    [
      { toolName: 'write', params: { path: 'memory/2026-11-29.md', content: '- A fact.\n' } },
      { content: '- A fact.\n' },
    ],
    [
      { toolName: 'write', params: { file_path: '/ws/memory/2026-11-29.md', content: '- A fact.' } },
      { content: '- A fact.' },
    ],
    [{ toolName: 'write', params: { path: 'notes.md', content: '- A fact.' } }, null],
    [{ toolName: 'write', params: { path: 'memory/2026-11-29.md', content: '  \n' } }, null],
    [{ toolName: 'write', params: { path: 'memory/2026-11-29.md', content: '- x' }, error: 'EACCES' }, null],
    [{ toolName: 'read', params: { path: 'memory/2026-11-29.md' } }, null],
  ])('%j → %j', (event, flush) => {
    expect(flushOf(event)).toEqual(flush)
  })
})

describe('flushIdOf', () => {
  it('is the same for the same session and text (a retried flush lands once), and mnemo takes it', () => {
    expect(flushIdOf('s-1', '- A fact.')).toBe(flushIdOf('s-1', '- A fact.'))
    expect(flushIdOf('s-1', '- A fact.')).not.toBe(flushIdOf('s-2', '- A fact.'))
    expect(flushIdOf('s-1', '- A fact.')).not.toBe(flushIdOf('s-1', '- Another.'))
    expect(flushIdOf('s-1', '- A fact.')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
  })
})
