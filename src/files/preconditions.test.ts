import { describe, expect, it } from 'vitest'
import { etagOf, parsePreconditions, preconditionHolds } from './preconditions.js'

const A = 'a'.repeat(64)
const B = 'b'.repeat(64)

describe('preconditions', () => {
  it.each([
    [undefined, undefined, { ifMatch: null, ifNoneMatch: false }],
    ['*', undefined, { ifMatch: '*', ifNoneMatch: false }],
    [A, undefined, { ifMatch: [A], ifNoneMatch: false }],
    [`"${A}"`, undefined, { ifMatch: [A], ifNoneMatch: false }],
    [`"${A.toUpperCase()}", ${B}`, undefined, { ifMatch: [A, B], ifNoneMatch: false }],
    [undefined, '*', { ifMatch: null, ifNoneMatch: true }],
  ])('parses If-Match %j / If-None-Match %j', (ifMatch, ifNoneMatch, expected) => {
    expect(parsePreconditions(ifMatch, ifNoneMatch)).toEqual({ kind: 'ok', value: expected })
  })

  it.each([
    ['abc', undefined],
    [`W/"${A}"`, undefined],
    [',', undefined],
    [undefined, `"${A}"`],
  ])('refuses If-Match %j / If-None-Match %j', (ifMatch, ifNoneMatch) => {
    expect(parsePreconditions(ifMatch, ifNoneMatch).kind).toBe('invalid')
  })

  it.each([
    [{ ifMatch: null, ifNoneMatch: false }, null, true],
    [{ ifMatch: null, ifNoneMatch: false }, A, true],
    [{ ifMatch: '*' as const, ifNoneMatch: false }, A, true],
    [{ ifMatch: '*' as const, ifNoneMatch: false }, null, false],
    [{ ifMatch: [A, B], ifNoneMatch: false }, B, true],
    [{ ifMatch: [A], ifNoneMatch: false }, B, false],
    [{ ifMatch: [A], ifNoneMatch: false }, null, false],
    [{ ifMatch: null, ifNoneMatch: true }, null, true],
    [{ ifMatch: null, ifNoneMatch: true }, A, false],
  ])('%j holds for current %j: %j', (p, current, expected) => {
    expect(preconditionHolds(p, current)).toBe(expected)
  })

  it('quotes the hash as an ETag', () => {
    expect(etagOf(A)).toBe(`"${A}"`)
  })
})
