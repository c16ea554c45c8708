import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { configIssues } from '../../test/helpers/config-issues.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './load-config.js'

const issuesOf = (env: Record<string, string>, cwd = '/srv/app'): string[] => configIssues(env, cwd)

describe('MNEMO_EXPAND_*', () => {
  it('is off by default, with the heuristic (no URL), a 3 s limit and 1,000 cached queries', () => {
    expect(loadConfig({}, '/srv/app').expand).toEqual({
      byDefault: false,
      baseUrl: undefined,
      apiKey: undefined,
      model: undefined,
      timeoutMs: 3000,
      cacheMaxEntries: 1000,
    })
  })

  it('needs a model with a URL', () => {
    expect(issuesOf({ MNEMO_EXPAND_BASE_URL: 'http://127.0.0.1:9/v1' })).toEqual([
      'MNEMO_EXPAND_MODEL: is required when MNEMO_EXPAND_BASE_URL is set',
    ])
  })

  it('reads the API key from MNEMO_EXPAND_API_KEY_FILE, but not with MNEMO_EXPAND_API_KEY too', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-expand-'))
    try {
      fs.writeFileSync(path.join(dir, 'key'), 'sk-from-file\n')
      const env = { MNEMO_EXPAND_BASE_URL: 'http://127.0.0.1:9/v1', MNEMO_EXPAND_MODEL: 'm' }
      expect(loadConfig({ ...env, MNEMO_EXPAND_API_KEY_FILE: 'key' }, dir).expand.apiKey).toBe('sk-from-file')
      expect(issuesOf({ ...env, MNEMO_EXPAND_API_KEY_FILE: 'key', MNEMO_EXPAND_API_KEY: 'sk-x' }, dir)).toEqual([
        'MNEMO_EXPAND_API_KEY: set either MNEMO_EXPAND_API_KEY or MNEMO_EXPAND_API_KEY_FILE, not both',
      ])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
