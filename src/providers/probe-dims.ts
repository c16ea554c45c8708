/**
 * Embedding dimensions without a setting (SPEC §6). An OpenAI-compatible model mnemo does
 * not know (an Ollama tag such as nomic-embed-text:v1.5, a vLLM deployment) is asked once
 * at start-up: one short text is embedded, within MNEMO_EMBED_TIMEOUT_MS and its retries,
 * and the vector's length is the index's dimensions. A failed probe stops start-up with
 * the URL it asked and the variable that avoids the probe.
 */
import type { Config } from '../config/config.js'
import { ProviderConfigError, resolveEmbeddingKind } from './create-providers.js'
import { defaultHttpDeps, type HttpDeps } from './http-json.js'
import { embeddingsUrl, KNOWN_MODEL_DIMS, OPENAI_DEFAULT_MODEL, requestEmbeddings } from './openai-embeddings.js'

/** What is embedded to learn the dimensions. */
const PROBE_TEXT = 'dimension probe'

/** Whether start-up must ask the server for the dimensions. */
export function needsDimsProbe(cfg: Config['embedding']): boolean {
  if (resolveEmbeddingKind(cfg) !== 'openai' || cfg.dims !== undefined) return false
  return KNOWN_MODEL_DIMS[cfg.model ?? OPENAI_DEFAULT_MODEL] === undefined
}

/** The config with `embedding.probedDims` set when the model's dimensions had to be asked. */
export async function probeEmbeddingDims(config: Config, http: HttpDeps = defaultHttpDeps): Promise<Config> {
  const cfg = config.embedding
  if (!needsDimsProbe(cfg)) return config
  const model = cfg.model ?? OPENAI_DEFAULT_MODEL
  const url = embeddingsUrl(cfg.baseUrl as string)
  const fail = (reason: string, cause?: unknown) =>
    new ProviderConfigError(
      `MNEMO_EMBED_DIMENSIONS: not set and model "${model}" is not one mnemo knows, and asking ${url} ` +
        `for its dimensions failed: ${reason}. Set MNEMO_EMBED_DIMENSIONS or fix MNEMO_EMBED_BASE_URL / MNEMO_EMBED_MODEL`,
      { cause },
    )
  let dims: number | undefined
  try {
    const out = await requestEmbeddings(
      {
        baseUrl: cfg.baseUrl as string,
        apiKey: cfg.apiKey,
        model,
        timeoutMs: cfg.timeoutMs,
        maxRetries: cfg.maxRetries,
        http,
      },
      [PROBE_TEXT],
    )
    dims = out.embeddings[0]?.length
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err), err)
  }
  if (!dims) throw fail('the answer holds an empty embedding')
  return { ...config, embedding: { ...cfg, probedDims: dims } }
}
