import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { ensureSchema, SCHEMA_VERSION } from './schema.js'

const tables = (db: Database.Database) =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'impact_%'")
    .all()
    .map((r) => r.name)
    .sort()

describe('ensureSchema', () => {
  it('adds the impact lists to a version 8 index in place, keeping its chunks', () => {
    const db = new Database(':memory:')
    ensureSchema(db)
    db.exec(`DROP TABLE impact_terms; DROP TABLE impact_postings;
      INSERT INTO meta (key, value) VALUES ('kept', 'yes'); PRAGMA user_version = 8`)
    expect(ensureSchema(db)).toBe(true)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(tables(db)).toEqual(['impact_postings', 'impact_terms'])
    expect(db.prepare('SELECT value FROM meta').pluck().get()).toBe('yes')
  })

  it('keeps a version 10 index as it is: its body terms, on one line, are read either way', () => {
    const db = new Database(':memory:')
    ensureSchema(db)
    db.exec(`INSERT INTO meta (key, value) VALUES ('kept', 'yes'); PRAGMA user_version = 10`)
    expect(ensureSchema(db)).toBe(true)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.prepare('SELECT value FROM meta').pluck().get()).toBe('yes')
  })

  it('adds the rare lists to a version 11 index in place, keeping its chunks', () => {
    const db = new Database(':memory:')
    ensureSchema(db)
    db.exec(`DROP TABLE rare_postings; DROP TABLE chunks_instances;
      INSERT INTO meta (key, value) VALUES ('kept', 'yes'); PRAGMA user_version = 11`)
    expect(ensureSchema(db)).toBe(true)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    const added = db.prepare(
      "SELECT name FROM sqlite_master WHERE name IN ('rare_postings', 'chunks_instances') ORDER BY name",
    )
    expect(added.pluck().all()).toEqual(['chunks_instances', 'rare_postings'])
    expect(db.prepare('SELECT value FROM meta').pluck().get()).toBe('yes')
  })

  it('refuses older versions: their index is built again', () => {
    const db = new Database(':memory:')
    db.pragma('user_version = 7')
    expect(ensureSchema(db)).toBe(false)
  })
})
