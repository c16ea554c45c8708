import { describe, expect, it } from 'vitest'
import { dot, isZeroVector, normalizeVector, vectorProblem } from './vectors.js'

describe('vector hygiene', () => {
  it.each([
    [[1, 2, 3], 3, null],
    [[1, 2], 3, 'expected 3 dimensions, got 2'],
    [[1, Number.NaN, 3], 3, 'non-finite value at index 1'],
    [[1, Number.POSITIVE_INFINITY, 3], 3, 'non-finite value at index 1'],
    [[0, 0, 0], 3, 'zero vector'],
  ])('vectorProblem(%j, %i) is %j', (values, dims, problem) => {
    expect(vectorProblem(values, dims)).toBe(problem)
  })

  it('normalises to unit length and keeps direction', () => {
    const v = normalizeVector([3, 4], 2)
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)])
    expect(dot(v, v)).toBeCloseTo(1, 6)
  })

  it('refuses what vectorProblem refuses', () => {
    expect(() => normalizeVector([1, 2], 3)).toThrow('expected 3 dimensions')
  })

  it('recognises zero vectors', () => {
    expect(isZeroVector(new Float32Array(4))).toBe(true)
    expect(isZeroVector(Float32Array.from([0, 0, 1e-9]))).toBe(false)
  })
})
