import { describe, expect, it } from 'vitest'
import { estimateTokens } from './token-estimate.js'

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
