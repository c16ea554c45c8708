/**
 * Wiring of export and import (part of the composition root): the archive layout from the
 * configuration, and the body an import may send.
 */
import type { AgentRegistry } from '../agents/agent-registry.js'
import type { AgentSpace } from '../agents/agent-space.js'
import type { Config } from '../config/config.js'
import type { Logger } from '../shared/logger.js'
import { createArchiveLayout, type LayoutConfig } from './archive-layout.js'
import { createTransferService } from './transfer-service.js'

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

export function createTransfer(deps: {
  config: TransferConfig
  registry: Pick<AgentRegistry, 'use' | 'list'>
  team: AgentSpace | null
  /** The users of an agent (agents-module.ts). */
  users: (agent: string) => Promise<string[]>
  log: Logger
}) {
  const { config } = deps
  return createTransferService({
    registry: deps.registry,
    team: deps.team,
    users: deps.users,
    layout: createArchiveLayout(config),
    limits: { maxBodyBytes: importBodyLimit(config), maxFileBytes: config.index.maxFileBytes },
    maxFolders: config.agents.maxFolders,
    log: deps.log.child({ module: 'transfer' }),
  })
}
