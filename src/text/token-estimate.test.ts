import { describe, expect, it } from 'vitest'
import { CJK_CHAR } from './scripts.js'
import { estimateTokens, isCjkCodePoint } from './token-estimate.js'

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['模型升级', 4],
    ['qwen 模型', 2 + 2],
    ['東京の天気', 5],
    ['서비스', 3],
  ])('estimates %j as %i tokens', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens)
  })

  it('counts a Chinese paragraph at about one token per character, not chars/4', () => {
    const zh = '将默认模型从升级为因为长文本推理更稳定'.repeat(10)
    expect(estimateTokens(zh)).toBe(zh.length)
    expect(estimateTokens('x'.repeat(zh.length))).toBe(Math.ceil(zh.length / 4))
  })
})

describe('isCjkCodePoint', () => {
  it('answers as CJK_CHAR for every code point, asked once or again', () => {
    const points = [...Array.from({ length: 0x10000 }, (_, cp) => cp), 0x20000, 0x2a6d6, 0x1f600, 0x10ffff]
    for (let pass = 0; pass < 2; pass++) {
      const wrong = points.filter((cp) => isCjkCodePoint(cp) !== CJK_CHAR.test(String.fromCodePoint(cp)))
      expect(wrong, `pass ${pass}`).toEqual([])
    }
  })
})
