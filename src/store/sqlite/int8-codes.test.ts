import { describe, expect, it } from 'vitest'
import { quantizeInt8, sparseQuery, topRows, type CodeMatrix } from './int8-codes.js'

const f32 = (xs: number[]) => Float32Array.from(xs)

describe('quantizeInt8', () => {
  it.each([
    { vector: [0.5, -0.25, 0, 0.125], codes: [127, -63, 0, 32], scale: 0.5 / 127 },
    { vector: [-1, 0.5], codes: [-127, 64], scale: 1 / 127 },
    { vector: [0.0625, -0.015625], codes: [127, -32], scale: 0.0625 / 127 },
    { vector: [0, 0, 0], codes: [0, 0, 0], scale: 0 },
  ])('maps $vector to $codes with the largest component at ±127', ({ vector, codes, scale }) => {
    const out = new Int8Array(vector.length + 2).fill(9)
    const got = quantizeInt8(f32(vector), out, 1)
    expect(got).toBeCloseTo(scale, 12)
    expect(Array.from(out.subarray(1, 1 + vector.length))).toEqual(codes)
    expect([out[0], out[vector.length + 1]]).toEqual([9, 9])
  })
})

describe('sparseQuery', () => {
  it.each([
    { vector: [0, 0.6, 0, -0.8], maxFraction: 0.5, index: [1, 3], value: [0.6, -0.8] },
    { vector: [0, 0.6, 0.1, -0.8], maxFraction: 0.5, index: null, value: null },
    { vector: [0, 0, 0, 0], maxFraction: 1, index: null, value: null },
    { vector: [1, 0, 0, 0], maxFraction: 0.25, index: [0], value: [1] },
  ])('keeps the non-zero dimensions of $vector up to $maxFraction of them', ({ vector, maxFraction, index, value }) => {
    const q = sparseQuery(f32(vector), maxFraction)
    expect(q && Array.from(q.index)).toEqual(index)
    expect(q && Array.from(q.value).map((x) => Math.round(x * 100) / 100)).toEqual(value)
  })
})

describe('topRows', () => {
  // Rows of 3 dimensions, scale 1: the estimate is the plain dot product of the codes.
  const matrix: CodeMatrix = {
    codes: Int8Array.from([10, 0, 0, 0, 10, 0, 5, 5, 0, 10, 0, 1, -10, 0, 0]),
    scales: Float32Array.from([1, 1, 1, 1, 1]),
    rows: 5,
    dims: 3,
  }
  const q = sparseQuery(f32([1, 0.5, 0]), 1)!
  // Rows 0, 2 and 4 in group 0, rows 1 and 3 in group 1.
  const group = Uint8Array.from([0, 1, 0, 1, 0])
  const both = Uint8Array.from([1, 1])

  it.each([
    { n: 1, allowed: both, rows: [0] },
    // Rows 0 and 3 tie at 10: the lower row comes first.
    { n: 3, allowed: both, rows: [0, 3, 2] },
    { n: 5, allowed: both, rows: [0, 3, 2, 1, 4] },
    { n: 9, allowed: both, rows: [0, 3, 2, 1, 4] },
    { n: 2, allowed: Uint8Array.from([0, 1]), rows: [3, 1] },
    { n: 9, allowed: Uint8Array.from([1, 0]), rows: [0, 2, 4] },
    { n: 2, allowed: Uint8Array.from([0, 0]), rows: [] },
  ])('keeps the $n best rows of the allowed groups $allowed, best first', ({ n, allowed, rows }) => {
    expect(topRows(matrix, q, n, group, allowed)).toEqual(rows)
  })

  it('weighs each row by its scale', () => {
    const scaled = { ...matrix, scales: Float32Array.from([1, 1, 1, 0.5, 1]) }
    expect(topRows(scaled, q, 2, group, both)).toEqual([0, 2])
  })
})
