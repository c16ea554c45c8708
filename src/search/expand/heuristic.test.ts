import { describe, expect, it } from 'vitest'
import { indexTokens, queryTerms } from '../../text/analyzer.js'
import { heuristicVariants } from './heuristic.js'

const texts = (q: string) => heuristicVariants(q).map((v) => v.text)

describe('heuristicVariants', () => {
  it('joins adjacent words, even pairs and odd pairs, so a note writing them as one word matches', () => {
    expect(texts('reset user name policy')).toEqual(['resetuser namepolicy', 'reset username policy'])
    // The joined variant asks for the term a note writing `username` is indexed with.
    const noteTerms = indexTokens('The Username was changed')
    expect(queryTerms('reset username policy').filter((t) => noteTerms.includes(t))).toEqual(['usernam'])
    expect(queryTerms('reset user name policy').filter((t) => noteTerms.includes(t))).toEqual([])
  })

  it('never joins stopwords, and joins only words written apart by whitespace', () => {
    expect(texts('what is the weather')).toEqual([])
    expect(texts('deploy, rollback')).toEqual([])
  })

  it('spells connector compounds without connectors and splits letters from digits', () => {
    const [forms] = texts('qwen-max vs gpt4')
    expect(forms).toBe('qwenmax vs gpt4 gpt-4')
    const noteTerms = indexTokens('moved from QwenMax to GPT 4')
    expect(queryTerms(forms as string).filter((t) => noteTerms.includes(t))).toEqual(['qwenmax', 'gpt', '4'])
  })

  it('leaves dates, version numbers and CJK as the analyzer already matches them', () => {
    expect(texts('2026-02-16')).toEqual([])
    expect(texts('1.2.3')).toEqual([])
    expect(texts('模型升级 去年的计划')).toEqual([])
  })

  it('gives keyword variants only', () => {
    expect(heuristicVariants('search index latency budget').every((v) => v.type === 'lex')).toBe(true)
  })
})
