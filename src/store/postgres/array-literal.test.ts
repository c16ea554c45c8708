import { describe, expect, it } from 'vitest'
import { boolArray, intArray, textArray } from './array-literal.js'

describe('array literals', () => {
  it.each([
    [[], '{}'],
    [['a'], '{"a"}'],
    [['', null, 'NULL'], '{"",NULL,"NULL"}'],
    [['a b', '{x,y}', 'say "hi"', 'back\\slash', '\\"'], '{"a b","{x,y}","say \\"hi\\"","back\\\\slash","\\\\\\""}'],
    [['记忆 服务', '😀'], '{"记忆 服务","😀"}'],
  ])('text %j', (values, literal) => {
    expect(textArray(values)).toBe(literal)
  })

  it.each([
    [[], '{}'],
    [[1, -2, 0], '{1,-2,0}'],
    [[2 ** 40, null], '{1099511627776,NULL}'],
    [new Int32Array([-(2 ** 31), 2 ** 31 - 1]), '{-2147483648,2147483647}'],
  ])('integers %j', (values, literal) => {
    expect(intArray(values)).toBe(literal)
  })

  it('booleans', () => {
    expect(boolArray([true, false, true])).toBe('{t,f,t}')
    expect(boolArray([])).toBe('{}')
  })
})
