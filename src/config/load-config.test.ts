import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { configIssues } from '../../test/helpers/config-issues.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { envSchema } from './env-schema.js'
import { loadConfig } from './load-config.js'

const cwd = '/srv/app'

const issuesOf = (env: Record<string, string>): string[] => configIssues(env, cwd)

describe('loadConfig', () => {
  it('starts from an empty environment with the documented defaults', () => {
    const config = loadConfig({}, cwd)
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8787, apiToken: undefined, bodyLimitBytes: 1048576 })
    expect(config.workspace).toEqual({
      root: '/srv/app/workspace',
      extraPaths: [],
      extraPathsWritable: false,
      sessionsDir: undefined,
    })
    expect(config.sync).toEqual({ watch: true, debounceMs: 1500, rescanMs: 300_000 })
    expect(config.index.dbPath).toBe(path.join('/srv/app/.mnemo', 'index.sqlite'))
    expect(config.chunking).toEqual({ maxTokens: 400, overlapTokens: 80 })
    expect(config.search).toEqual({
      maxResults: 6,
      minScore: 0.35,
      snippetMaxChars: 700,
      snippetBytesPerSearch: 65536,
      workers: 2,
      quantizedFrom: 10_000,
      vectorWeight: 0.7,
      textWeight: 0.3,
      candidateMultiplier: 4,
      maxCandidates: 200,
      halfLifeDays: 0,
      mmr: false,
      mmrLambda: 0.7,
    })
    expect(config.embedding).toMatchObject({ provider: 'auto', dims: undefined, hashDims: 256, vectorBackend: 'auto' })
    expect(config.rerank).toMatchObject({ provider: 'none', timeoutMs: 3000, topN: 20 })
    expect(Object.isFrozen(config.search)).toBe(true)
  })

  it('treats empty strings as unset', () => {
    expect(loadConfig({ MNEMO_PORT: '', MNEMO_API_TOKEN: ' ' }, cwd).server).toMatchObject({
      port: 8787,
      apiToken: undefined,
    })
  })

  it('treats an empty value of every variable as unset: the same config as an empty environment', () => {
    const names = Object.keys(envSchema.shape)
    const allEmpty = Object.fromEntries(names.map((name) => [name, '']))
    expect(loadConfig(allEmpty, cwd)).toEqual(loadConfig({}, cwd))
  })

  it.each([
    [{ MNEMO_PORT: 'http' }, 'MNEMO_PORT'],
    [{ MNEMO_PORT: '70000' }, 'MNEMO_PORT'],
    [{ MNEMO_INDEX_ON_START: 'yes' }, 'MNEMO_INDEX_ON_START'],
    [{ MNEMO_SEARCH_MIN_SCORE: '1.5' }, 'MNEMO_SEARCH_MIN_SCORE'],
    [{ MNEMO_LOG_LEVEL: 'loud' }, 'MNEMO_LOG_LEVEL'],
    [{ MNEMO_CHUNK_TOKENS: '100', MNEMO_CHUNK_OVERLAP_TOKENS: '100' }, 'MNEMO_CHUNK_OVERLAP_TOKENS'],
    [{ MNEMO_EXTRA_PATHS: '../elsewhere' }, 'MNEMO_EXTRA_PATHS'],
    [{ MNEMO_EXTRA_PATHS: '/etc' }, 'MNEMO_EXTRA_PATHS'],
    [{ MNEMO_EMBED_PROVIDER: 'openai' }, 'MNEMO_EMBED_BASE_URL'],
    [{ MNEMO_EMBED_PROVIDER: 'local' }, 'MNEMO_LOCAL_MODEL_DIR'],
    [{ MNEMO_EMBED_BASE_URL: 'not a url' }, 'MNEMO_EMBED_BASE_URL'],
    [{ MNEMO_RERANK_PROVIDER: 'http' }, 'MNEMO_RERANK_BASE_URL'],
    [{ MNEMO_RERANK_PROVIDER: 'dashscope' }, 'MNEMO_RERANK_API_KEY'],
    [{ MNEMO_RERANK_PROVIDER: 'local' }, 'MNEMO_RERANK_LOCAL_MODEL_DIR'],
    [{ MNEMO_SEARCH_VECTOR_WEIGHT: '0', MNEMO_SEARCH_TEXT_WEIGHT: '0' }, 'MNEMO_SEARCH_VECTOR_WEIGHT'],
    [{ MNEMO_REQUEST_TIMEOUT_MS: '5000', MNEMO_BODY_IDLE_TIMEOUT_MS: '5001' }, 'MNEMO_BODY_IDLE_TIMEOUT_MS'],
  ])('names the variable of a bad value: %j', (env, variable) => {
    const issues = issuesOf(env)
    expect(issues.some((i) => i.startsWith(`${variable}:`))).toBe(true)
  })

  it('lists every problem at once', () => {
    expect(issuesOf({ MNEMO_PORT: 'x', MNEMO_LOG_LEVEL: 'loud', MNEMO_INDEX_ON_START: '1' })).toHaveLength(3)
  })

  it.each([
    [{}, { requestTimeoutMs: 30_000, bodyIdleTimeoutMs: 10_000 }],
    // Lowering the request timeout alone keeps the idle time within it.
    [{ MNEMO_REQUEST_TIMEOUT_MS: '5000' }, { requestTimeoutMs: 5000, bodyIdleTimeoutMs: 5000 }],
    [{ MNEMO_BODY_IDLE_TIMEOUT_MS: '500' }, { requestTimeoutMs: 30_000, bodyIdleTimeoutMs: 500 }],
  ])('times request bodies: %j → %j', (env, expected) => {
    expect(loadConfig(env, cwd).server).toMatchObject(expected)
  })

  it.each([
    [{}, 32 * 1024 * 1024],
    [{ MNEMO_MAX_BODY_BYTES_IN_FLIGHT: '20000000' }, 10_000_000],
    // A file limit past half the budget: one agent may still send one file of that size.
    [{ MNEMO_MAX_FILE_BYTES: '50000000' }, 50_000_000],
  ])('gives one agent half the body bytes in flight, at least the largest body: %j → %i', (env, share) => {
    expect(loadConfig(env, cwd).admission.agentBodyShareBytes).toBe(share)
  })

  it('stores extra paths workspace-relative, whether given relative or absolute', () => {
    const config = loadConfig({ MNEMO_EXTRA_PATHS: 'notes, /srv/app/workspace/docs/a.md,notes' }, cwd)
    expect(config.workspace.extraPaths).toEqual(['notes', 'docs/a.md'])
  })
})

describe('agent settings', () => {
  const tokenA = 'token-of-agent-a-0123'
  const tokenB = 'token-of-agent-b-0123'

  it('has only main, no team and no tokens by default', () => {
    expect(loadConfig({}, cwd).agents).toEqual({
      dir: undefined,
      maxOpen: 64,
      maxAgents: 1000,
      maxFolders: 100,
      maxUsers: 10_000,
      teamDir: undefined,
      teamWritable: false,
      tokens: new Map(),
      grants: new Map(),
      ownerAgents: new Set(),
    })
  })

  it('reads agent tokens from the variable or the file, splitting each at its first colon', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-tokens-'))
    try {
      fs.writeFileSync(path.join(dir, 'tokens'), `# agents\n\nb:${tokenB}:with-colon\r\n`)
      const fromFile = loadConfig(
        { MNEMO_AGENTS_DIR: 'agents', MNEMO_TEAM_DIR: 'team', MNEMO_AGENT_TOKENS_FILE: path.join(dir, 'tokens') },
        cwd,
      )
      expect(fromFile.agents.dir).toBe('/srv/app/agents')
      expect(fromFile.agents.teamDir).toBe('/srv/app/team')
      expect([...fromFile.agents.tokens]).toEqual([['b', `${tokenB}:with-colon`]])
      const fromVariable = loadConfig({ MNEMO_AGENTS_DIR: 'agents', MNEMO_AGENT_TOKENS: ` a:${tokenA} ,` }, cwd)
      expect([...fromVariable.agents.tokens]).toEqual([['a', tokenA]])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('compares real paths: a symlink to the workspace is the workspace', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-overlap-')))
    try {
      fs.mkdirSync(path.join(dir, 'workspace'))
      fs.symlinkSync(path.join(dir, 'workspace'), path.join(dir, 'team'))
      expect(() => loadConfig({ MNEMO_TEAM_DIR: 'team' }, dir)).toThrow(/MNEMO_TEAM_DIR: must not be/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.each([
    [{ MNEMO_AGENT_TOKENS: `Bad:${tokenA}` }, 'entry 1: what stands before ":" is not an agent id'],
    [{ MNEMO_AGENT_TOKENS: 'main:short' }, 'shorter than 16 characters'],
    [{ MNEMO_AGENT_TOKENS: `main:${tokenA},main:${tokenB}` }, '"main" has a token already'],
    [{ MNEMO_AGENTS_DIR: 'a', MNEMO_AGENT_TOKENS: `a:${tokenA},b:${tokenA}` }, 'have the same token'],
    [{ MNEMO_API_TOKEN: tokenA, MNEMO_AGENT_TOKENS: `main:${tokenA}` }, 'is MNEMO_API_TOKEN'],
    [{ MNEMO_AGENT_TOKENS: `ops:${tokenA}` }, 'need MNEMO_AGENTS_DIR'],
    [{ MNEMO_AGENT_TOKENS_FILE: '/nonexistent/tokens' }, 'cannot read /nonexistent/tokens (ENOENT)'],
    [{ MNEMO_TEAM_DIR: 'workspace/team' }, 'MNEMO_TEAM_DIR: must not be, contain or lie inside MNEMO_WORKSPACE'],
    [{ MNEMO_TEAM_DIR: 'agents', MNEMO_AGENTS_DIR: 'agents' }, 'must not be, contain or lie inside MNEMO_AGENTS_DIR'],
    [{ MNEMO_AGENTS_DIR: 'workspace' }, 'MNEMO_AGENTS_DIR: must not be, contain or lie inside MNEMO_WORKSPACE'],
    [{ MNEMO_AGENTS_DIR: 'workspace/memory/agents' }, 'MNEMO_AGENTS_DIR: must not be, contain or lie inside'],
    [{ MNEMO_AGENTS_DIR: '.', MNEMO_WORKSPACE: 'agents/bob' }, 'MNEMO_AGENTS_DIR: must not be, contain or lie inside'],
    [{ MNEMO_TEAM_DIR: 'team', MNEMO_EXTRA_PATHS: 'team/notes' }, 'team/ is reserved'],
    [{ MNEMO_MAX_OPEN_AGENTS: '0' }, 'MNEMO_MAX_OPEN_AGENTS'],
    [{ MNEMO_AGENT_TOKENS: `main/../ops:${tokenA}` }, 'is not an agent id or agent/user'],
    [{ MNEMO_AGENT_TOKENS: `main/Alice:${tokenA}` }, 'is not an agent id or agent/user'],
    [{ MNEMO_AGENT_TOKENS: `main/a/b:${tokenA}` }, 'is not an agent id or agent/user'],
    [{ MNEMO_AGENT_TOKENS: `ops/alice:${tokenA}` }, 'need MNEMO_AGENTS_DIR'],
    [{ MNEMO_EXTRA_PATHS: 'users/shared' }, 'users/ is reserved'],
    [{ MNEMO_EXTRA_PATHS: 'users' }, 'users/ is reserved'],
  ])('refuses %j', (env, expected) => {
    const issues = issuesOf(env)
    expect(issues.join('\n')).toContain(expected)
    expect(issues.join('\n')).not.toContain(tokenA)
  })
})

describe('the admin token and token files', () => {
  const admin = 'admin-token-0123456789'
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-secret-'))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))
  const secretFile = (text: string) => {
    const file = path.join(dir, 'secret')
    fs.writeFileSync(file, text)
    return file
  }

  it.each([
    ['no newline', admin],
    ['a trailing \\n', `${admin}\n`],
    ['a trailing \\r\\n', `${admin}\r\n`],
  ])('reads MNEMO_API_TOKEN_FILE with %s as the token itself', (_, text) => {
    expect(loadConfig({ MNEMO_API_TOKEN_FILE: secretFile(text) }, cwd).server.apiToken).toBe(admin)
  })

  it('takes a token bound to a user of an agent, agent/user:token', () => {
    const config = loadConfig({ MNEMO_AGENT_TOKENS: `main:${admin},main/alice:${admin}x` }, cwd)
    expect([...config.agents.tokens.keys()]).toEqual(['main', 'main/alice'])
  })

  it('reads MNEMO_AGENT_TOKENS_FILE ending in a newline', () => {
    const config = loadConfig({ MNEMO_AGENT_TOKENS_FILE: secretFile(`main:${admin}\n`) }, cwd)
    expect([...config.agents.tokens]).toEqual([['main', admin]])
  })

  it.each([
    [{ MNEMO_API_TOKEN: 'short-token' }, 'MNEMO_API_TOKEN: the admin token is shorter than 16 characters'],
    [{ MNEMO_API_TOKEN: 'admin token 0123456789' }, 'MNEMO_API_TOKEN: the admin token contains whitespace'],
    [{ MNEMO_API_TOKEN: admin, MNEMO_API_TOKEN_FILE: 'secret' }, 'set either MNEMO_API_TOKEN or MNEMO_API_TOKEN_FILE'],
    [
      { MNEMO_AGENT_TOKENS: `main:${admin}`, MNEMO_AGENT_TOKENS_FILE: 'tokens' },
      'set either MNEMO_AGENT_TOKENS or MNEMO_AGENT_TOKENS_FILE',
    ],
    [{ MNEMO_API_TOKEN_FILE: '/nonexistent/secret' }, 'MNEMO_API_TOKEN_FILE: cannot read /nonexistent/secret (ENOENT)'],
  ])('refuses %j', (env, expected) => {
    expect(issuesOf(env).join('\n')).toContain(expected)
  })

  it('refuses a token file with more than one trailing newline (whitespace), without printing the token', () => {
    const issues = issuesOf({ MNEMO_API_TOKEN_FILE: secretFile(`${admin}\n\n`) }).join('\n')
    expect(issues).toContain('MNEMO_API_TOKEN_FILE: the admin token contains whitespace')
    expect(issues).not.toContain(admin)
  })

  // Every message about a bad token, for every way of giving one: none may print the token.
  const secret = 'sEcReT-0123456789-sEcReT'
  it.each([
    [{ MNEMO_API_TOKEN: 'sEcReT' }],
    [{ MNEMO_API_TOKEN: `${secret} x` }],
    [{ MNEMO_API_TOKEN: secret, MNEMO_API_TOKEN_FILE: 'x' }],
    [{ MNEMO_AGENT_TOKENS: secret }],
    [{ MNEMO_AGENT_TOKENS: `${secret}:main` }],
    [{ MNEMO_AGENT_TOKENS: `main:sEcReT` }],
    [{ MNEMO_AGENT_TOKENS: `main:${secret} x` }],
    [{ MNEMO_AGENT_TOKENS: `main:${secret},main:${secret}` }],
    [{ MNEMO_AGENTS_DIR: 'a', MNEMO_AGENT_TOKENS: `a:${secret},b:${secret}` }],
    [{ MNEMO_API_TOKEN: secret, MNEMO_AGENT_TOKENS: `main:${secret}` }],
    [{ MNEMO_AGENT_TOKENS: `main:${secret}`, MNEMO_AGENT_TOKENS_FILE: 'x' }],
    [{ MNEMO_AGENT_TOKENS: `ops:${secret}` }],
    [{ MNEMO_HOST: '0.0.0.0', MNEMO_API_TOKEN: 'sEcReT' }],
  ])('never prints a token: %j', (env) => {
    const issues = issuesOf(env).join('\n')
    expect(issues).not.toContain('sEcReT')
  })

  it('reads the PostgreSQL URL from its variable or its file, never both, and never repeats it', () => {
    const url = 'postgres://mnemo:pa55word@db:5432/mnemo'
    expect(loadConfig({}, cwd).index.database).toBeUndefined()
    expect(loadConfig({ MNEMO_DATABASE_URL: url }, cwd).index.database).toEqual({
      url,
      schema: 'mnemo',
      poolMax: 10,
      waitMs: 5000,
    })
    expect(
      loadConfig({ MNEMO_DATABASE_URL_FILE: secretFile(`${url}\n`), MNEMO_DATABASE_SCHEMA: 'team_a' }, cwd).index
        .database,
    ).toEqual({ url, schema: 'team_a', poolMax: 10, waitMs: 5000 })
    expect(issuesOf({ MNEMO_DATABASE_URL: url, MNEMO_DATABASE_URL_FILE: secretFile(url) })).toEqual([
      'MNEMO_DATABASE_URL: set either MNEMO_DATABASE_URL or MNEMO_DATABASE_URL_FILE, not both',
    ])
    const wrong = issuesOf({ MNEMO_DATABASE_URL_FILE: secretFile('mysql://root:pa55word@db/x') }).join('\n')
    expect(wrong).toContain('MNEMO_DATABASE_URL_FILE: must hold a postgres:// or postgresql:// URL')
    expect(wrong).not.toContain('pa55word')
    expect(issuesOf({ MNEMO_DATABASE_SCHEMA: 'Robert"); DROP' }).join('\n')).toContain('MNEMO_DATABASE_SCHEMA')
  })

  it('never repeats the value of any variable in a message (any of them may be a secret)', () => {
    const env = Object.fromEntries(Object.keys(envSchema.shape).map((name) => [name, 'sEcReT-value']))
    const issues = issuesOf(env)
    expect(issues.length).toBeGreaterThan(30)
    expect(issues.join('\n')).not.toContain('sEcReT')
  })

  it('refuses to listen beyond loopback without any token, naming the token and the opt-out', () => {
    const issues = issuesOf({ MNEMO_HOST: '0.0.0.0' }).join('\n')
    expect(issues).toContain('MNEMO_API_TOKEN: needed because MNEMO_HOST=0.0.0.0 is reachable from other machines')
    expect(issues).toContain('MNEMO_ALLOW_NO_TOKEN=true')
  })

  it.each([
    [{ MNEMO_HOST: '0.0.0.0', MNEMO_ALLOW_NO_TOKEN: 'true' }],
    [{ MNEMO_HOST: '0.0.0.0', MNEMO_API_TOKEN: admin }],
    [{ MNEMO_HOST: '::', MNEMO_AGENT_TOKENS: `main:${admin}` }],
    [{ MNEMO_HOST: 'localhost' }],
    [{ MNEMO_HOST: '::1' }],
    [{ MNEMO_HOST: '127.0.0.2' }],
  ])('starts with %j', (env) => {
    expect(() => loadConfig(env, cwd)).not.toThrow()
  })
})
