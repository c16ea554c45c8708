import { describe, expect, it } from 'vitest'
import { mnemoId } from './ids.js'

const VALID = /^[a-z0-9][a-z0-9_-]{0,62}$/

describe('mnemoId', () => {
  it.each(['alice', 'main', 'user_42', 'a-b'])('keeps %j as it is', (id) => {
    expect(mnemoId(id)).toBe(id)
  })

  it.each(['Alice', '+1 (555) 010-9999', 'telegram:12345', 'ann@example.com', '山田', '-x-', 'x'.repeat(80)])(
    'makes %j a valid id',
    (raw) => {
      expect(mnemoId(raw)).toMatch(VALID)
      expect(mnemoId(raw)).toBe(mnemoId(raw))
    },
  )

  it('never gives two senders the same id, even when their cleaned forms meet', () => {
    const ids = ['Ann', 'ann', 'ANN', '+1 555', '1-555', '1 555', '山田', '田中'].map(mnemoId)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
