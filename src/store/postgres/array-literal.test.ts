import { describe, expect, it } from 'vitest'
import { boolArray, int4Binary, int8KeysBinary, intArray, textArray, textBinary } from './array-literal.js'

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

  it.each([
    [[], '00000000 00000000 00000017'],
    [[5], '00000001 00000000 00000017 00000001 00000001 00000004 00000005'],
    [[-1, 2 ** 31 - 1], '00000001 00000000 00000017 00000002 00000001 00000004 ffffffff 00000004 7fffffff'],
  ])('int4 %j in the binary format: dimensions, no NULL, int4, then length and value of each', (values, words) => {
    const hex = int4Binary(Int32Array.from(values)).toString('hex')
    expect(hex.match(/.{8}/g)?.join(' ') ?? '').toBe(words)
  })

  it.each([
    [[], [], 7, '00000000 00000000 00000014'],
    [[-1], [5], 3, '00000001 00000000 00000014 00000001 00000001 00000008 ffffffff 00000006'],
    [
      [1, 2 ** 31 - 1],
      [-1, 0],
      2 ** 32 + 1,
      '00000001 00000000 00000014 00000002 00000001 00000008 00000001 fffffffe 00000008 7fffffff 00000001',
    ],
  ])(
    'term keys %j, %j xor %d as int8 in the binary format: the high half as it is, the low xor the low 32 bits of the id',
    (high, low, xor, words) => {
      const hex = int8KeysBinary(Int32Array.from(high), Int32Array.from(low), xor).toString('hex')
      expect(hex.match(/.{8}/g)?.join(' ') ?? '').toBe(words)
    },
  )

  it.each([
    [[], '00000000 00000000 00000019'],
    [['ab'], '00000001 00000000 00000019 00000001 00000001 00000002 6162'],
    [['', null], '00000001 00000001 00000019 00000002 00000001 00000000 ffffffff'],
    [['记'], '00000001 00000000 00000019 00000001 00000001 00000003 e8aeb0'],
  ])('text %j in the binary format: each element its UTF-8 length (-1: NULL) and bytes', (values, words) => {
    expect(textBinary(values).toString('hex')).toBe(words.replaceAll(' ', ''))
  })

  it('booleans', () => {
    expect(boolArray([true, false, true])).toBe('{t,f,t}')
    expect(boolArray([])).toBe('{}')
  })
})
