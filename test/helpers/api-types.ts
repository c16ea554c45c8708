/**
 * Response bodies as the API declares them: the types openapi-typescript generates from
 * openapi/openapi.json, named as @mnemo/client names them (src/client/types.ts), so a test
 * reading a field the API no longer has fails to typecheck.
 */
export type {
  AgentList,
  ErrorBody,
  FlushResult,
  IndexStatus,
  LoggedSearch,
  SearchHit,
  SearchResponse,
} from '../../src/client/types.js'
