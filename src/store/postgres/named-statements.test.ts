import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { Queryable } from './database.js'
import { createNamedStatements } from './named-statements.js'

type Call = { name?: string; text: string }

/** A connection whose named statements fail with `code` (none: they work). */
function connection(code?: string) {
  const calls: Call[] = []
  const db = {
    query: async (q: string | { name?: string; text: string }) => {
      const call = typeof q === 'string' ? { text: q } : q
      calls.push(call)
      if (call.name !== undefined && code) throw Object.assign(new Error('session'), { code })
      return { rows: [{ n: 1 }] }
    },
  } as unknown as Queryable
  return { db, calls }
}

const silent = pino({ level: 'silent' })

describe('createNamedStatements', () => {
  it('names a statement by its text, the same name each time', async () => {
    const { db, calls } = connection()
    const statements = createNamedStatements(silent)
    await statements.query(db, 'SELECT 1', [])
    await statements.query(db, 'SELECT 1', [])
    await statements.query(db, 'SELECT 2', [])
    expect(calls[0]?.name).toMatch(/^mnemo-[0-9a-f]{40}$/)
    expect(calls[1]?.name).toBe(calls[0]?.name)
    expect(calls[2]?.name).not.toBe(calls[0]?.name)
  })

  it('gives a text the same name after more texts than it remembers', async () => {
    const { db, calls } = connection()
    const statements = createNamedStatements(silent)
    for (let i = 0; i <= 1000; i++) await statements.query(db, `SELECT ${i}`, [])
    await statements.query(db, 'SELECT 0', [])
    expect(calls.at(-1)?.name).toBe(calls[0]?.name)
    expect(new Set(calls.map((c) => c.name)).size).toBe(1001)
  })

  it.each(['42P05', '26000'])(
    'answers unnamed when the session is shared (%s), and names nothing afterwards',
    async (code) => {
      const { db, calls } = connection(code)
      const warnings: unknown[] = []
      const log = { warn: (o: unknown) => warnings.push(o) } as unknown as typeof silent
      const statements = createNamedStatements(log)
      expect((await statements.query(db, 'SELECT 1', [])).rows).toEqual([{ n: 1 }])
      await statements.query(db, 'SELECT 1', [])
      expect(calls.map((c) => c.name !== undefined)).toEqual([true, false, false])
      expect(warnings).toHaveLength(1)
    },
  )

  it('passes any other error on', async () => {
    const { db } = connection('57P01')
    await expect(createNamedStatements(silent).query(db, 'SELECT 1', [])).rejects.toMatchObject({ code: '57P01' })
  })
})
