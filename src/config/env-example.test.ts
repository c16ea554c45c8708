import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { envSchema } from './env-schema.js'

const EXAMPLE = path.resolve(import.meta.dirname, '../../.env.example')

function parseExample(): Map<string, string> {
  const vars = new Map<string, string>()
  for (const line of fs.readFileSync(EXAMPLE, 'utf8').split('\n')) {
    const m = /^(MNEMO_[A-Z0-9_]+)=(.*)$/.exec(line)
    if (m) vars.set(m[1] as string, m[2] as string)
  }
  return vars
}

describe('.env.example', () => {
  it('lists every MNEMO_* variable the service reads, and nothing else', () => {
    expect([...parseExample().keys()].sort()).toEqual(Object.keys(envSchema.shape).sort())
  })

  it('shows each variable with its real default', () => {
    const example = Object.fromEntries(parseExample())
    expect(envSchema.parse(example)).toEqual(envSchema.parse({}))
  })
})
