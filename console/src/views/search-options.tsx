/**
 * Every /search option as a labelled form control, and the request they make. Empty fields
 * are left out, so the service's defaults apply.
 */
import type { Schemas } from '../api.js'

type Request = Schemas['SearchRequestInput']
export type OptionValues = Partial<Record<keyof Request, string | boolean>>

type Field =
  | { key: keyof Request; label: string; kind: 'number'; step: string }
  | { key: keyof Request; label: string; kind: 'text'; hint: string }
  | { key: keyof Request; label: string; kind: 'select'; choices: string[] }
  | { key: keyof Request; label: string; kind: 'check' }
  | { key: keyof Request; label: string; kind: 'list'; hint: string }

const FIELDS: Field[] = [
  { key: 'mode', label: 'Mode', kind: 'select', choices: ['', 'hybrid', 'keyword', 'vector'] },
  { key: 'maxResults', label: 'Max results', kind: 'number', step: '1' },
  { key: 'minScore', label: 'Min score', kind: 'number', step: '0.01' },
  { key: 'maxTokens', label: 'Max tokens', kind: 'number', step: '1' },
  { key: 'sources', label: 'Sources', kind: 'list', hint: 'memory, sessions' },
  { key: 'spaces', label: 'Spaces', kind: 'list', hint: 'agent, user, team, agent:<id>' },
  { key: 'scope', label: 'Scope', kind: 'select', choices: ['', 'private', 'shared'] },
  { key: 'pathPrefix', label: 'Path prefix', kind: 'text', hint: 'memory/' },
  { key: 'after', label: 'After', kind: 'text', hint: 'YYYY-MM-DD' },
  { key: 'before', label: 'Before', kind: 'text', hint: 'YYYY-MM-DD' },
  { key: 'origins', label: 'Origins', kind: 'list', hint: 'owner, agent, untrusted, system' },
  { key: 'halfLifeDays', label: 'Half-life (days)', kind: 'number', step: '1' },
  { key: 'mmrLambda', label: 'MMR lambda', kind: 'number', step: '0.05' },
  { key: 'datedOnly', label: 'Dated notes only', kind: 'check' },
  { key: 'includeSuperseded', label: 'Include superseded', kind: 'check' },
  { key: 'mmr', label: 'Diversify (MMR)', kind: 'check' },
  { key: 'expand', label: 'Expand the query', kind: 'check' },
  { key: 'rerank', label: 'Rerank', kind: 'select', choices: ['', 'true', 'false'] },
]

/** Options that narrow what may match, named when a search returns nothing. */
export const FILTERS: [keyof Request, string][] = [
  ['sources', 'sources'],
  ['spaces', 'spaces'],
  ['scope', 'scope'],
  ['pathPrefix', 'path prefix'],
  ['after', 'after'],
  ['before', 'before'],
  ['datedOnly', 'dated only'],
  ['origins', 'origins'],
]

/** The request a query and the filled-in options make. */
export function requestOf(query: string, values: OptionValues): Request {
  const request: Record<string, unknown> = { query }
  for (const field of FIELDS) {
    const v = values[field.key]
    if (v === undefined || v === '' || v === false) continue
    if (field.kind === 'number') request[field.key] = Number(v)
    else if (field.kind === 'list') {
      const items = String(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      if (items.length > 0) request[field.key] = items
    } else if (field.key === 'rerank') request.rerank = v === 'true'
    else request[field.key] = v
  }
  return request as Request
}

export function SearchOptions({ values, onChange }: { values: OptionValues; onChange: (v: OptionValues) => void }) {
  const set = (key: keyof Request, value: string | boolean) => onChange({ ...values, [key]: value })
  return (
    <details class="options">
      <summary>Options</summary>
      <div class="option-grid">
        {FIELDS.map((field) => {
          const id = `opt-${field.key}`
          const value = values[field.key]
          switch (field.kind) {
            case 'check':
              return (
                <label class="check" for={id}>
                  <input
                    id={id}
                    type="checkbox"
                    checked={value === true}
                    onChange={(e) => set(field.key, e.currentTarget.checked)}
                  />{' '}
                  {field.label}
                </label>
              )
            case 'select':
              return (
                <label for={id}>
                  {field.label}
                  <select id={id} value={String(value ?? '')} onChange={(e) => set(field.key, e.currentTarget.value)}>
                    {field.choices.map((c) => (
                      <option value={c}>{c || 'default'}</option>
                    ))}
                  </select>
                </label>
              )
            case 'number':
              return (
                <label for={id}>
                  {field.label}
                  <input
                    id={id}
                    type="number"
                    step={field.step}
                    min="0"
                    value={String(value ?? '')}
                    onInput={(e) => set(field.key, e.currentTarget.value)}
                  />
                </label>
              )
            case 'text':
            case 'list':
              return (
                <label for={id}>
                  {field.label}
                  <input
                    id={id}
                    type="text"
                    placeholder={field.hint}
                    value={String(value ?? '')}
                    onInput={(e) => set(field.key, e.currentTarget.value)}
                  />
                </label>
              )
          }
        })}
      </div>
    </details>
  )
}
