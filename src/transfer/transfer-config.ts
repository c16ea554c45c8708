/** What export and import are configured with, and the body an import may send. */
import type { Config } from '../config/config.js'
import type { LayoutConfig } from './archive-layout.js'

export type TransferConfig = LayoutConfig & {
  index: Pick<Config['index'], 'maxFileBytes'>
  admission: Pick<Config['admission'], 'maxBodyBytesInFlight'>
  agents: Pick<Config['agents'], 'maxFolders'>
}

/**
 * Largest archive POST /import takes, in bytes: half of MNEMO_MAX_BODY_BYTES_IN_FLIGHT
 * (default 64 MiB, so 32 MiB), so one import leaves room for other requests' bodies, and
 * at least MNEMO_MAX_FILE_BYTES (one file of the largest size). The archive is held in
 * memory while it is checked: this also bounds that.
 */
export const importBodyLimit = (config: TransferConfig): number =>
  Math.max(config.index.maxFileBytes, Math.floor(config.admission.maxBodyBytesInFlight / 2))
