import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loadSqliteVec } from './sqlite-vec.js'
import { chooseVectorBackend } from './vector-backend.js'

const log = pino({ level: 'silent' })
const broken = () => {
  throw new Error('no such extension')
}

describe('chooseVectorBackend', () => {
  it('uses sqlite-vec when it loads', () => {
    expect(chooseVectorBackend('auto', loadSqliteVec, log)).toBe('sqlite-vec')
  })

  it('falls back to the exact scan when it does not, unless sqlite-vec was demanded', () => {
    expect(chooseVectorBackend('auto', broken, log)).toBe('scan')
    expect(() => chooseVectorBackend('sqlite-vec', broken, log)).toThrow(/^MNEMO_VECTOR_BACKEND=sqlite-vec/)
  })

  it('honours scan when asked', () => {
    expect(chooseVectorBackend('scan', loadSqliteVec, log)).toBe('scan')
  })
})
