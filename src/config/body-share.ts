/**
 * Bytes one agent's request bodies may hold (admission/body-budget.ts spends them), from the
 * process budget and the largest body a route takes: half the budget (32 MiB of the default
 * 64 MiB), so every other agent always has the other half; or the largest body if that is
 * more (MNEMO_MAX_FILE_BYTES or MNEMO_BODY_LIMIT_BYTES set past half the budget), or one
 * valid request could never fit.
 */
export const agentBodyShareBytes = (limitBytes: number, largestBodyBytes: number): number =>
  Math.max(Math.floor(limitBytes / 2), largestBodyBytes)
