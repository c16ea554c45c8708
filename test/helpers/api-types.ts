/**
 * Response bodies as the API declares them: the types openapi-typescript generates from
 * openapi/openapi.json, so a test reading a field the API no longer has fails to typecheck.
 */
import type { components } from '../../src/generated/api-types.js'

type Schemas = components['schemas']

/** GET /index, POST /index?wait=true. */
export type IndexStatus = Schemas['IndexStatus']
/** POST /search. */
export type SearchResponse = Schemas['SearchResponse']
export type SearchHit = Schemas['SearchHit']
/** POST /flush. */
export type FlushResult = Schemas['FlushResult']
/** GET /searches. */
export type LoggedSearch = Schemas['LoggedSearch']
/** GET /agents. */
export type AgentList = Schemas['AgentList']
/** Any 4xx or 5xx answer. */
export type ErrorBody = Schemas['ErrorBody']
