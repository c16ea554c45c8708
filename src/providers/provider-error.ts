/**
 * Errors from embedding and rerank providers. They map to 502 PROVIDER_FAILED or
 * 504 PROVIDER_TIMEOUT when a request cannot do without the provider (mode "vector"), and
 * to a `degraded` note when it can. Messages never include keys or request bodies.
 */
import { AppError } from '../shared/errors.js'

export class ProviderError extends AppError {
  constructor(
    kind: 'failed' | 'timeout',
    readonly provider: string,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(
      kind === 'timeout' ? 'PROVIDER_TIMEOUT' : 'PROVIDER_FAILED',
      `${provider}: ${message}`,
      { status: options?.status },
      {
        cause: options?.cause,
      },
    )
    this.name = 'ProviderError'
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError
}

/** `err` as a ProviderError of `provider` (a provider's own errors are kept as they are). */
export function asProviderError(err: unknown, provider: string): ProviderError {
  if (err instanceof ProviderError) return err
  return new ProviderError('failed', provider, err instanceof Error ? err.message : String(err), { cause: err })
}
