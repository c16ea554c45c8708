/** POST /search request and response (SPEC §3). */
import { ENTRY_STATUSES, ORIGINS } from '../../domain/entry-meta.js'
import { z } from 'zod'
import { parseDateBound } from '../../search/date-range.js'
import { DEGRADED_CODES } from '../../search/degraded.js'
import { AGENT_ID_PATTERN } from '../../shared/agent-id.js'
import { PathPrefix } from './common.schema.js'

/** Most results one search answers (and one /mcp request, however many calls its batch holds). */
export const MAX_RESULTS = 100

export const Source = z.enum(['memory', 'sessions']).meta({ id: 'Source' })

export const Space = z
  .union([z.enum(['agent', 'user', 'team']), z.templateLiteral(['agent:', z.string().regex(AGENT_ID_PATTERN)])])
  .describe(
    '"agent": the agent\'s own (shared) memory; "user": the private memory of the user the request acts for ' +
      '(X-Mnemo-User; paths under users/<id>/); "team": the team memory every agent shares (paths under team/); ' +
      '"agent:<id>": the memory of agent <id>, which this agent may search and read but not write under a grant ' +
      '(MNEMO_AGENT_GRANTS; paths under agents/<id>/)',
  )
  .meta({ id: 'Space' })

const DateBound = z
  .string()
  .refine((v) => parseDateBound(v) !== null, 'must be an ISO date (2026-03-01) or date-time (2026-03-01T09:30)')

export const SearchRequest = z
  .strictObject({
    query: z.string().trim().min(1).max(4000).describe('What to look for: words, identifiers, Chinese, any mix'),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .optional()
      .describe('Results to return (default MNEMO_SEARCH_MAX_RESULTS, 6)'),
    minScore: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Drop results scoring below this (default MNEMO_SEARCH_MIN_SCORE, 0.35)'),
    mode: z
      .enum(['hybrid', 'keyword', 'vector'])
      .optional()
      .describe(
        'hybrid (default) merges keyword and vector search; without an embedder it runs as keyword; vector needs an embedder (503 EMBEDDING_UNAVAILABLE)',
      ),
    rerank: z
      .boolean()
      .optional()
      .describe('false skips the reranker for this request (default: rerank when one is configured)'),
    sources: z.array(Source).min(1).optional().describe('Sources to search (default all)'),
    pathPrefix: PathPrefix.optional().describe('Only files whose workspace-relative path starts with this'),
    scope: z
      .enum(['private', 'shared'])
      .optional()
      .describe('"shared" (group chats) leaves out the agent\'s MEMORY.md; "private" (default) includes it'),
    spaces: z
      .array(Space)
      .min(1)
      .optional()
      .describe(
        "Memory spaces to search, merged by score (default: the agent's own, the acting user's, the team's when configured, and every agent:<id> it has a grant for). A granted space it has no grant for is 400 VALIDATION_FAILED, and so is user without X-Mnemo-User",
      ),
    maxTokens: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe(
        'Token budget of the answer: results are packed best first while their snippets fit (estimated: a CJK character ≈ 1 token, other text ≈ 4 characters per token); the last one is trimmed at a line boundary. Without maxResults, up to 100 results. usage.resultTokens says what was returned',
      ),
    after: DateBound.optional().describe(
      "Only notes written at or after this: an ISO date (the server's local midnight, as day files are named) or date-time. A day file memory/YYYY-MM-DD.md is dated by its name, a flush entry by its heading's time, other files by their modification time; MEMORY.md is undated and kept unless datedOnly",
    ),
    before: DateBound.optional().describe('Only notes written before this (exclusive); same forms as after'),
    datedOnly: z
      .boolean()
      .optional()
      .describe(
        'true leaves out undated notes (MEMORY.md) — with after/before, or alone: only dated notes (default false)',
      ),
    includeSuperseded: z
      .boolean()
      .optional()
      .describe(
        'true also returns superseded entries (an entry whose metadata comment says status: superseded), marked so in status; by default a search returns current facts only (default false)',
      ),
    origins: z
      .array(z.enum(ORIGINS))
      .min(1)
      .optional()
      .describe(
        'Only entries whose metadata comment names one of these origins (owner, agent, untrusted, system); text outside any entry has none and is left out (default: no filter)',
      ),
    halfLifeDays: z
      .number()
      .min(0)
      .max(36500)
      .optional()
      .describe(
        'Temporal decay: a day file (memory/YYYY-MM-DD.md) loses half its score per this many days of age; MEMORY.md and undated files never decay. 0 = none (default MNEMO_SEARCH_HALF_LIFE_DAYS, 0)',
      ),
    mmr: z
      .boolean()
      .optional()
      .describe(
        'Diversify results (maximal marginal relevance): skip near-copies of results already above (default MNEMO_SEARCH_MMR, false)',
      ),
    mmrLambda: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        'MMR trade-off: 1 is score order, lower favours results unlike those above (default MNEMO_SEARCH_MMR_LAMBDA, 0.7)',
      ),
    expand: z
      .boolean()
      .optional()
      .describe(
        'Query expansion: also search keyword (lex), rephrased (vec) and hypothetical-answer (hyde) variants of the query, from the MNEMO_EXPAND_* chat model or, without one, heuristic keyword variants; their candidates count at 0.8 of their score, so expansion only adds results (default MNEMO_SEARCH_EXPAND, false)',
      ),
  })
  .meta({ id: 'SearchRequest', example: { query: 'qwen-max 模型升级' } })

export const SearchHit = z
  .object({
    path: z
      .string()
      .describe(
        "Workspace-relative POSIX path; the acting user's memory under users/<id>/, team memory under team/, a granted agent's under agents/<id>/ (readable with GET /files)",
      ),
    startLine: z.number().int().describe('First line of the chunk, 1-based'),
    endLine: z.number().int().describe('Last line of the chunk, inclusive'),
    snippet: z
      .string()
      .describe(
        "Up to 700 characters of the chunk, around the best-matching line; shorter or empty past the answer's snippet budget (snippetsShortened)",
      ),
    score: z
      .number()
      .describe(
        'Final score in [0, 1], comparable across queries: textScore by keyword, the weighted mean of textScore and vectorScore in hybrid, rerankScore when reranked, times the decay with halfLifeDays. Results are sorted by it (mmr may reorder)',
      ),
    textScore: z
      .number()
      .describe(
        "How much of the query the chunk holds, in [0, 1): about the share of the query's information (IDF-weighted words) it contains; 0.35 ≈ a third",
      ),
    vectorScore: z.number().describe('1 − cosine distance; 0 when vector search did not return this chunk'),
    rerankScore: z.number().optional().describe('Reranker relevance, when reranking ran'),
    recency: z
      .number()
      .optional()
      .describe(
        'The temporal decay factor the score was multiplied by, in (0, 1] (1: undated or new); only with halfLifeDays > 0',
      ),
    source: Source,
    space: Space,
    status: z
      .enum(ENTRY_STATUSES)
      .describe(
        "The entry's status from its metadata comment; active for text outside any entry (files without metadata are all active)",
      ),
    observed: z
      .string()
      .nullable()
      .describe("When the entry's fact was observed (YYYY-MM-DD), from its metadata comment; null when not given"),
    key: z
      .string()
      .nullable()
      .describe("The entry's supersession key (a fact's lineage), from its metadata comment; null when not given"),
    origin: z
      .enum(ORIGINS)
      .nullable()
      .describe(
        'Who the entry came from (owner, agent, untrusted, system), from its metadata comment; null when not given',
      ),
  })
  .meta({ id: 'SearchHit' })

/** Why a stage fell back, as a code (search/degraded.ts); degradedCodes describes them. */
const DegradedCode = z.enum(DEGRADED_CODES)

export const SearchResponse = z
  .object({
    results: z.array(SearchHit),
    mode: z.enum(['hybrid', 'keyword', 'vector']).describe('The mode that actually ran'),
    snippetsShortened: z
      .number()
      .int()
      .optional()
      .describe(
        'Results whose snippet was shortened or left empty to keep the answer within MNEMO_SNIPPET_BYTES_PER_SEARCH (64 KiB of snippets); their lines are readable with GET /files. Absent when none was',
      ),
    degraded: z
      .object({
        vector: z.string().optional().describe('Why the vector side did not run (embedder failed or timed out)'),
        rerank: z.string().optional().describe('Why results are in merged order (reranker failed or timed out)'),
        expand: z
          .string()
          .optional()
          .describe('Why the query was searched without (some of) its variants (expansion model failed or timed out)'),
      })
      .optional()
      .describe(
        'Present when a configured stage failed and the search fell back; the reasons are for people (compare degradedCodes)',
      ),
    degradedCodes: z
      .object({
        vector: DegradedCode.optional().describe('Why the vector side did not run, as a code'),
        rerank: DegradedCode.optional().describe('Why results are in merged order, as a code'),
        expand: DegradedCode.optional().describe("Why (some of) the query's variants were left out, as a code"),
      })
      .optional()
      .describe(
        'Present exactly when degraded is: the same stages, each with its reason as a stable code. ' +
          'PROVIDER_FAILED: the provider answered with an error or could not be reached; PROVIDER_TIMEOUT: it did not answer within its time limit; ' +
          'EMBEDDING_UNAVAILABLE: the embedding server has not answered since start-up (asked again in the background); ' +
          'INDEX_REBUILDING: an index is being rebuilt for new embedding settings (keyword results until it is swapped in)',
      ),
    requestId: z
      .string()
      .optional()
      .describe('The id the search log keeps this search under, for POST /feedback; absent with MNEMO_SEARCH_LOG=off'),
    abstained: z
      .object({
        bestScore: z.number().describe('The best score of a chunk that matched, below minScore'),
        minScore: z.number().describe('The minScore the search applied'),
      })
      .optional()
      .describe(
        'Present when no result is returned although chunks matched: every one scored below minScore ' +
          '(mnemo abstained rather than answer with a weak match). Absent when nothing matched at all',
      ),
    usage: z
      .object({
        embeddingTokens: z
          .number()
          .int()
          .describe('Tokens the embedding provider reported for the query (0 for a cached query vector)'),
        rerankTokens: z.number().int().describe('Tokens the reranker reported'),
        resultTokens: z
          .number()
          .int()
          .describe("Estimated tokens of the results' snippets (what maxTokens budgets), with or without maxTokens"),
      })
      .describe('Tokens this search cost and returned'),
    timingsMs: z.object({
      keyword: z.number(),
      embed: z.number(),
      vector: z.number(),
      rerank: z.number(),
      total: z.number(),
    }),
  })
  .meta({ id: 'SearchResponse' })
