import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config/load-config.js'
import {
  AUTO_OFFLINE,
  createEmbeddingProvider,
  createRerankProvider,
  resolveEmbeddingKind,
} from './create-providers.js'

const cfg = (env: Record<string, string>) => loadConfig(env, os.tmpdir())

describe('provider factory', () => {
  const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-auto-'))

  it.each([
    [{}, AUTO_OFFLINE],
    [{ MNEMO_EMBED_BASE_URL: 'http://localhost:11434/v1' }, 'openai'],
    [{ MNEMO_LOCAL_MODEL_DIR: modelDir, MNEMO_EMBED_BASE_URL: 'http://x/v1' }, 'local'],
    [{ MNEMO_LOCAL_MODEL_DIR: path.join(modelDir, 'missing'), MNEMO_EMBED_BASE_URL: 'http://x/v1' }, 'openai'],
    [{ MNEMO_EMBED_PROVIDER: 'hash' }, 'hash'],
    [{ MNEMO_EMBED_PROVIDER: 'none', MNEMO_EMBED_BASE_URL: 'http://x/v1' }, 'none'],
  ])('auto and explicit choices: %j → %s', (env, kind) => {
    expect(resolveEmbeddingKind(cfg(env).embedding)).toBe(kind)
  })

  it('builds keyword-only, hash and openai providers', () => {
    expect(createEmbeddingProvider(cfg({ MNEMO_EMBED_PROVIDER: 'none' }).embedding)).toBeNull()
    expect(
      createEmbeddingProvider(cfg({ MNEMO_EMBED_PROVIDER: 'hash', MNEMO_HASH_DIMS: '128' }).embedding),
    ).toMatchObject({ id: 'hash', dims: 128 })
    expect(createEmbeddingProvider(cfg({ MNEMO_EMBED_BASE_URL: 'https://api.openai.com/v1' }).embedding)).toMatchObject(
      {
        id: 'openai',
        model: 'text-embedding-3-small',
        dims: 1536,
      },
    )
  })

  it('needs MNEMO_EMBED_DIMENSIONS for a model it does not know', () => {
    const c = cfg({ MNEMO_EMBED_BASE_URL: 'http://localhost:8080/v1', MNEMO_EMBED_MODEL: 'my-model' })
    expect(() => createEmbeddingProvider(c.embedding)).toThrow(/^MNEMO_EMBED_DIMENSIONS: /)
    const ok = cfg({
      MNEMO_EMBED_BASE_URL: 'http://localhost:8080/v1',
      MNEMO_EMBED_MODEL: 'my-model',
      MNEMO_EMBED_DIMENSIONS: '768',
    })
    expect(createEmbeddingProvider(ok.embedding)).toMatchObject({ dims: 768 })
  })

  it('builds the configured reranker', () => {
    expect(createRerankProvider(cfg({}).rerank, false)).toBeNull()
    expect(
      createRerankProvider(cfg({ MNEMO_RERANK_PROVIDER: 'http', MNEMO_RERANK_BASE_URL: 'http://x' }).rerank, false),
    ).toMatchObject({ id: 'http' })
    expect(
      createRerankProvider(cfg({ MNEMO_RERANK_PROVIDER: 'dashscope', MNEMO_RERANK_API_KEY: 'k' }).rerank, false),
    ).toMatchObject({
      id: 'dashscope',
      model: 'gte-rerank',
    })
  })
})
