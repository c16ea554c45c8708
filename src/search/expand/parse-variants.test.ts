import { describe, expect, it } from 'vitest'
import { parseVariants } from './parse-variants.js'
import { keepVariants, MAX_VARIANT_CHARS } from './variants.js'

describe('parseVariants', () => {
  it.each([
    ['a JSON object', '{"lex": ["db pool size"], "vec": ["how big is the pool"], "hyde": "The pool holds 10."}'],
    [
      'a JSON object in a code fence with prose',
      'Sure!\n```json\n{"lex": "db pool size", "vec": ["how big is the pool"], "hyde": ["The pool holds 10."]}\n```',
    ],
    [
      'a JSON list of typed variants',
      '[{"type":"lex","text":"db pool size"},{"type":"vec","text":"how big is the pool"},{"type":"hyde","text":"The pool holds 10."},{"type":"x","text":"?"}]',
    ],
    ["QMD's typed lines", 'lex: db pool size\nsome prose\nVEC: how big is the pool\n- hyde: The pool holds 10.'],
  ])('reads %s', (_name, content) => {
    expect(parseVariants(content)).toEqual([
      { type: 'lex', text: 'db pool size' },
      { type: 'vec', text: 'how big is the pool' },
      { type: 'hyde', text: 'The pool holds 10.' },
    ])
  })

  it.each([
    ['prose', 'I cannot help with that.'],
    ['JSON of another shape', '{"queries": ["a", "b"]}'],
    ['values that are not text', '{"lex": [1, 2], "vec": null}'],
    ['nothing', ''],
  ])('finds no variants in %s', (_name, content) => {
    expect(parseVariants(content)).toEqual([])
  })
})

describe('keepVariants', () => {
  it('collapses whitespace, drops empties, repeats and copies of the query, and caps each type', () => {
    const kept = keepVariants('Pool Size', [
      { type: 'lex', text: ' pool   size ' },
      { type: 'lex', text: 'a' },
      { type: 'lex', text: 'A' },
      { type: 'lex', text: '' },
      { type: 'lex', text: 'b' },
      { type: 'lex', text: 'c' },
      { type: 'lex', text: 'd' },
      { type: 'hyde', text: 'pool size' },
      { type: 'hyde', text: 'second' },
      { type: 'vec', text: 'x'.repeat(MAX_VARIANT_CHARS + 10) },
    ])
    expect(kept).toEqual([
      { type: 'lex', text: 'a' },
      { type: 'lex', text: 'b' },
      { type: 'lex', text: 'c' },
      { type: 'hyde', text: 'pool size' },
      { type: 'vec', text: 'x'.repeat(MAX_VARIANT_CHARS) },
    ])
  })
})
