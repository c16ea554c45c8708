import { afterAll, describe, expect, it } from 'vitest'
import { int4Binary, textBinary } from '../../src/store/postgres/array-literal.js'
import { createPool } from '../../src/store/postgres/database.js'
import { databaseUrl } from './pg-engine.js'

describe('arrays sent in the binary format', () => {
  const pool = createPool({ url: databaseUrl(), max: 1, connectTimeoutMs: 10_000 })
  afterAll(() => pool.end())

  it.each([[[]], [[7]], [[1, -2, 0, 3]], [[-(2 ** 31), 2 ** 31 - 1, 0]]])(
    'reads %j back as the same int4[], sliced from 1 as a literal is',
    async (values) => {
      const { rows } = await pool.query<{ a: number[]; n: number; tail: number[] }>(
        `SELECT $1::int4[] AS a, cardinality($1::int4[]) AS n, ($1::int4[])[2:] AS tail`,
        [int4Binary(Int32Array.from(values))],
      )
      expect(rows[0]).toEqual({ a: values, n: values.length, tail: values.slice(1) })
    },
  )

  it('reads texts back as they were: empty, NULL, quotes, backslashes, braces, commas, Chinese, emoji', async () => {
    const values = [
      '',
      null,
      'NULL',
      'say "hi"',
      'back\\slash',
      '{x,y}',
      'a, b',
      '记忆 服务\n第二行',
      '😀',
      'x'.repeat(5000),
    ]
    const { rows } = await pool.query<{ a: (string | null)[]; n: number }>(
      `SELECT $1::text[] AS a, cardinality($1::text[]) AS n`,
      [textBinary(values)],
    )
    expect(rows[0]).toEqual({ a: values, n: values.length })
  })

  it('sends a lone surrogate as the replacement character, as the text of a literal goes', async () => {
    const { rows } = await pool.query<{ a: string[]; b: string }>(`SELECT $1::text[] AS a, $2::text AS b`, [
      textBinary(['a\ud800b']),
      'a\ud800b',
    ])
    expect(rows[0]?.a).toEqual([rows[0]?.b])
    expect(rows[0]?.b).toBe('a\ufffdb')
  })
})
