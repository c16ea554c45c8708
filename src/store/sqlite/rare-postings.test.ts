import { describe, expect, it } from 'vitest'
import { encodePostings, forEachPosting, type RarePosting } from './rare-postings.js'

const decoded = (blob: Uint8Array): RarePosting[] => {
  const out: RarePosting[] = []
  forEachPosting(blob, (id, body, heading, tokens) => out.push({ id, body, heading, tokens }))
  return out
}

describe('rare postings', () => {
  it.each([
    { name: 'none', postings: [], bytes: 0 },
    { name: 'one small', postings: [{ id: 1, body: 1, heading: 0, tokens: 5 }], bytes: 4 },
    // 128 takes a second byte; ids are stored as distances from the previous one.
    { name: 'a value of 128', postings: [{ id: 128, body: 1, heading: 0, tokens: 127 }], bytes: 5 },
    {
      name: 'far apart, big counts',
      postings: [
        { id: 3, body: 0, heading: 2, tokens: 250 },
        { id: 2 ** 40, body: 300, heading: 0, tokens: 70_000 },
        { id: 2 ** 40 + 1, body: 1, heading: 1, tokens: 1 },
      ],
      bytes: 5 + (6 + 2 + 1 + 3) + 4,
    },
  ])('$name: decodes to what was encoded, in $bytes bytes', ({ postings, bytes }) => {
    const blob = encodePostings(postings)
    expect(blob.length).toBe(bytes)
    expect(decoded(blob)).toEqual(postings)
  })

  it('refuses postings out of id order', () => {
    const p = { body: 1, heading: 0, tokens: 1 }
    expect(() =>
      encodePostings([
        { id: 5, ...p },
        { id: 5, ...p },
      ]),
    ).toThrow(/increasing id/)
    expect(() => encodePostings([{ id: 0, ...p }])).toThrow(/increasing id/)
  })
})
