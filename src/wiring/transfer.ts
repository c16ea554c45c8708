/**
 * Wiring of export and import (part of the composition root): the archive layout from the
 * configuration, and the body an import may send.
 */
import type { AgentRegistry } from '../agents/agent-registry.js'
import type { AgentSpace } from '../agents/agent-space.js'
import type { Logger } from '../shared/logger.js'
import { createArchiveLayout } from '../transfer/archive-layout.js'
import { importBodyLimit, type TransferConfig } from '../transfer/transfer-config.js'
import { createTransferService } from '../transfer/transfer-service.js'

export function createTransfer(deps: {
  config: TransferConfig
  registry: Pick<AgentRegistry, 'use' | 'list'>
  team: AgentSpace | null
  /** The users of an agent (agents.ts). */
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
