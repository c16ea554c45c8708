/**
 * Embedding dimensions without a setting (SPEC §6). An OpenAI-compatible model mnemo does
 * not know (an Ollama tag such as nomic-embed-text:v1.5, a vLLM deployment) is asked: one
 * short text is embedded and the vector's length is the index's dimensions. Start-up asks
 * once, briefly (probeEmbeddingDims); a server that does not answer (down, still loading,
 * an unknown model) never stops start-up: the dimensions it answered before are used
 * (remembered-dims.ts), or none, and the service keeps asking in the background
 * (wiring/embedding.ts, on the probeDelayMs schedule) while searches run by keyword.
 */
import type { Config } from '../config/config.js'
import type { Logger } from '../shared/logger.js'
import { resolveEmbeddingKind } from './create-providers.js'
import { defaultHttpDeps, type HttpDeps } from './http-json.js'
import { KNOWN_MODEL_DIMS, OPENAI_DEFAULT_MODEL, requestEmbeddings } from './openai-embeddings.js'
import { dimsKey, readRememberedDims, rememberDimsOrWarn } from './remembered-dims.js'

/** What is embedded to learn the dimensions. */
const PROBE_TEXT = 'dimension probe'
/**
 * Longest wait for the start-up probe, in ms (or MNEMO_EMBED_TIMEOUT_MS if shorter): a
 * model server that hangs must not keep the service from listening.
 */
export const STARTUP_PROBE_TIMEOUT_MS = 5000
/** Background probes: the first 1 s after the failed start-up probe, doubling to every 60 s. */
const PROBE_FIRST_DELAY_MS = 1000
const PROBE_MAX_DELAY_MS = 60_000

/** Whether the model's dimensions must be asked of the server. */
export function needsDimsProbe(cfg: Config['embedding']): boolean {
  if (resolveEmbeddingKind(cfg) !== 'openai' || cfg.dims !== undefined) return false
  return KNOWN_MODEL_DIMS[cfg.model ?? OPENAI_DEFAULT_MODEL] === undefined
}

/** Wait before background probe number `attempt` (0-based), in ms. */
export function probeDelayMs(attempt: number): number {
  return Math.min(PROBE_MAX_DELAY_MS, PROBE_FIRST_DELAY_MS * 2 ** Math.min(attempt, 30))
}

/** Where the dimensions of this model are remembered. */
export const dimsKeyOf = (cfg: Config['embedding']): string =>
  dimsKey(cfg.baseUrl as string, cfg.model ?? OPENAI_DEFAULT_MODEL)

/** One request, no retries: the dimensions the server's vectors have. Throws with the reason. */
export async function askEmbeddingDims(
  cfg: Config['embedding'],
  opts: { timeoutMs: number; signal?: AbortSignal; http?: HttpDeps },
): Promise<number> {
  const out = await requestEmbeddings(
    {
      baseUrl: cfg.baseUrl as string,
      apiKey: cfg.apiKey,
      model: cfg.model ?? OPENAI_DEFAULT_MODEL,
      timeoutMs: opts.timeoutMs,
      maxRetries: 0,
      http: opts.http ?? defaultHttpDeps,
    },
    [PROBE_TEXT],
    { signal: opts.signal },
  )
  const dims = out.embeddings[0]?.length
  if (!dims) throw new Error('openai: the answer holds an empty embedding')
  return dims
}

/**
 * Start-up: the config with `embedding.probedDims` when the model's dimensions had to be
 * asked, learnt now (and remembered) or remembered from before; `embedding.probeError`
 * says why this start's probe failed (the container then keeps asking). Never throws.
 */
export async function probeEmbeddingDims(config: Config, opts: { log: Logger; http?: HttpDeps }): Promise<Config> {
  const cfg = config.embedding
  if (!needsDimsProbe(cfg)) return config
  const key = dimsKeyOf(cfg)
  const model = cfg.model ?? OPENAI_DEFAULT_MODEL
  let dims: number
  try {
    const timeoutMs = Math.min(cfg.timeoutMs, STARTUP_PROBE_TIMEOUT_MS)
    dims = await askEmbeddingDims(cfg, { timeoutMs, ...(opts.http && { http: opts.http }) })
  } catch (err) {
    const probeError = err instanceof Error ? err.message : String(err)
    const remembered = readRememberedDims(config.index.dataDir, key)
    opts.log.warn(
      { model, error: probeError, rememberedDims: remembered },
      remembered === undefined
        ? 'the embedding server did not answer the dimensions probe: searching by keyword until it does ' +
            '(asked again in the background; MNEMO_EMBED_DIMENSIONS avoids the probe)'
        : 'the embedding server did not answer the dimensions probe: using the dimensions it answered before ' +
            '(asked again in the background)',
    )
    return { ...config, embedding: { ...cfg, probedDims: remembered, probeError } }
  }
  rememberDimsOrWarn(config.index.dataDir, key, dims, opts.log)
  opts.log.info({ model, dims }, 'learnt the embedding dimensions from the server')
  return { ...config, embedding: { ...cfg, probedDims: dims } }
}
