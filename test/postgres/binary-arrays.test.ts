import { afterAll, describe, expect, it } from 'vitest'
import { int4Binary } from '../../src/store/postgres/array-literal.js'
import { createPool } from '../../src/store/postgres/database.js'
import { databaseUrl } from './pg-engine.js'

describe('int4 arrays sent in the binary format', () => {
  const pool = createPool({ url: databaseUrl(), max: 1, connectTimeoutMs: 10_000 })
  afterAll(() => pool.end())

  it.each([[[]], [[7]], [[1, -2, 0, 3]], [[-(2 ** 31), 2 ** 31 - 1, 0]]])(
    'reads %j back as the same int4[], sliced from 1 as a literal is',
    async (values) => {
      const { rows } = await pool.query<{ a: number[]; n: number; tail: number[] }>(
        `SELECT $1::int4[] AS a, cardinality($1::int4[]) AS n, ($1::int4[])[2:] AS tail`,
        [int4Binary(values)],
      )
      expect(rows[0]).toEqual({ a: values, n: values.length, tail: values.slice(1) })
    },
  )
})
