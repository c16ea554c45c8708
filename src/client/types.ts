/** The API's request and answer types, as generated from the OpenAPI document (npm run openapi). */
import type { components } from '../generated/api-types.js'

type Schemas = components['schemas']

export type SearchRequest = Schemas['SearchRequestInput']
export type SearchResponse = Schemas['SearchResponse']
export type SearchHit = Schemas['SearchHit']
export type FileWindow = Schemas['FileWindow']
export type FileInfo = Schemas['FileInfo']
export type FileWriteResult = Schemas['FileWriteResult']
export type FileDeleteResult = Schemas['FileDeleteResult']
export type FlushRequest = Schemas['FlushRequestInput']
export type FlushResult = Schemas['FlushResult']
export type SupersedeRequest = Schemas['SupersedeRequestInput']
export type SupersedeResult = Schemas['SupersedeResult']
export type ForgetResult = Schemas['ForgetResult']
export type IndexStatus = Schemas['IndexStatus']
export type Ready = Schemas['Ready']
export type AgentList = Schemas['AgentList']
export type UserList = Schemas['UserList']
export type UserDeleteResult = Schemas['UserDeleteResult']
export type LoggedSearch = Schemas['LoggedSearch']
export type FeedbackRequest = Schemas['FeedbackRequestInput']
export type FeedbackResult = Schemas['FeedbackResult']
export type ImportResult = Schemas['ImportResult']
export type ChangeEvent = Schemas['ChangeEvent']
export type ErrorBody = Schemas['ErrorBody']
export type Origin = NonNullable<SearchHit['origin']>
