/** Builds query expansion from its configuration: the chat model when a URL is set, else the heuristic. */
import type { Config } from '../config/config.js'
import type { Logger } from '../shared/logger.js'
import { createChatVariants } from '../search/expand/chat-variants.js'
import { heuristicSource } from '../search/expand/heuristic.js'
import { createQueryExpansion, type QueryExpansion } from '../search/expand/query-expansion.js'

export function createExpansionModule(config: Config['expand'], log: Logger): QueryExpansion {
  const source =
    config.baseUrl && config.model
      ? createChatVariants({
          baseUrl: config.baseUrl,
          apiKey: config.apiKey,
          model: config.model,
          timeoutMs: config.timeoutMs,
        })
      : heuristicSource
  return createQueryExpansion({
    source,
    timeoutMs: config.timeoutMs,
    cacheMaxEntries: config.cacheMaxEntries,
    byDefault: config.byDefault,
    log,
  })
}
