/**
 * Finishing touches on the generated OpenAPI document, so client generators and linters
 * (openapi-typescript, Redocly) take it as it is: a named path parameter for the files
 * routes, no unused component schemas, a description on every response, a `type`
 * beside every `nullable`, and error answers as JSON on routes that produce something else.
 */
import type { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { ERROR_CODES } from '../../shared/errors.js'

/** The name the document gives a route's trailing wildcard (`/files/*` → `/files/{path}`). */
const WILDCARD_NAME = 'path'

type Transformed = ReturnType<typeof jsonSchemaTransform>
type ParamsSchema = { properties?: Record<string, unknown>; required?: string[] }

/**
 * The document without component schemas nothing refers to: the zod provider registers an
 * input and an output variant of every named schema, and most are used as one or the other.
 * The rest are sorted by name: they are registered as modules load, and the MCP routes' are
 * loaded on first use, so their order would follow what a process did before.
 */
function withoutUnusedSchemas<T>(doc: T): T {
  const d = doc as { paths?: unknown; components?: { schemas?: Record<string, unknown> } }
  const schemas = d.components?.schemas
  if (!schemas) return doc
  const REF = /"#\/components\/schemas\/([^"]+)"/g
  const used = new Set<string>()
  let frontier = [JSON.stringify(d.paths ?? {})]
  while (frontier.length > 0) {
    const next: string[] = []
    for (const text of frontier) {
      for (const [, name] of text.matchAll(REF)) {
        if (name === undefined || used.has(name) || !(name in schemas)) continue
        used.add(name)
        next.push(JSON.stringify(schemas[name]))
      }
    }
    frontier = next
  }
  const kept = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => used.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )
  return { ...doc, components: { ...d.components, schemas: kept } }
}

/**
 * Fastify's wildcard `*` would appear as `/files/{*}`, which client generators cannot fill
 * (openapi-fetch sends `/files/%7B*%7D`); in the document it is a named parameter instead.
 * A client that encodes the path's slashes (`memory%2Fa.md`) is served the same file.
 */
export function namedWildcard(out: Transformed): Transformed {
  if (!out.url.endsWith('/*')) return out
  const schema = out.schema as { params?: ParamsSchema }
  const params = schema.params
  if (!params?.properties || !('*' in params.properties)) return out
  const { '*': wildcard, ...rest } = params.properties
  return {
    url: `${out.url.slice(0, -1)}:${WILDCARD_NAME}`,
    schema: {
      ...out.schema,
      params: {
        ...params,
        properties: { ...rest, [WILDCARD_NAME]: wildcard },
        required: (params.required ?? []).map((r) => (r === '*' ? WILDCARD_NAME : r)),
      },
    },
  }
}

type Operation = { summary?: string; responses?: Record<string, { description?: string }> }

/** "What the status means": the error codes answered with it, from the one error table. */
function errorDescription(status: string): string | undefined {
  const codes = Object.entries(ERROR_CODES)
    .filter(([, e]) => String(e.status) === status)
    .map(([code]) => code)
  return codes.length > 0 ? `Error (\`code\`: ${codes.join(', ')})` : undefined
}

/** Replaces the generator's "Default Response" with the operation's summary or the error codes. */
function describeResponses<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, Operation>> }).paths ?? {}
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.description && response.description !== 'Default Response') continue
        response.description = status.startsWith('2')
          ? (op.summary ?? 'Success')
          : (errorDescription(status) ?? 'Error')
      }
    }
  }
  return doc
}

type Media = Record<string, { schema?: { $ref?: string } }>

/**
 * Error answers are JSON whatever a route produces on success (a tar archive, Prometheus
 * text): the generator lists them under the route's `produces` types, so they are moved.
 */
function jsonErrors<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { responses?: Record<string, { content?: Media }> }>> })
    .paths
  for (const ops of Object.values(paths ?? {})) {
    for (const op of Object.values(ops)) {
      for (const response of Object.values(op.responses ?? {})) {
        const media = Object.values(response.content ?? {})
        const error = media.find((m) => m.schema?.$ref === '#/components/schemas/ErrorBody')
        if (error && !response.content?.['application/json']) response.content = { 'application/json': error }
      }
    }
  }
  return doc
}

/** OpenAPI 3.0 wants a `type` beside `nullable`; zod writes `{nullable, allOf: [$ref]}` for a nullable object. */
function typedNullables(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) typedNullables(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const o = node as Record<string, unknown>
  if (o.nullable === true && o.type === undefined && Array.isArray(o.allOf)) o.type = 'object'
  for (const value of Object.values(o)) typedNullables(value)
}

/** The whole document's finishing touches (see the top of this file). */
export function tidyDocument<T>(doc: T): T {
  typedNullables(doc)
  return jsonErrors(describeResponses(withoutUnusedSchemas(doc)))
}
