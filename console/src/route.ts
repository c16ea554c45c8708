/**
 * The console's address: `#/<view>?<params>`, so every view (a file at its lines, a search)
 * can be linked to and survives a reload. The token is never part of it.
 */
import { useEffect, useState } from 'preact/hooks'

export const VIEWS = ['overview', 'files', 'search', 'live', 'searches'] as const
export type View = (typeof VIEWS)[number]
export type Route = { view: View; params: URLSearchParams }

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  const view = (VIEWS as readonly string[]).includes(path) ? (path as View) : 'overview'
  return { view, params: new URLSearchParams(query) }
}

/** The address of a view, with the given params (empty ones left out). */
export function href(view: View, params: Record<string, string | number | null | undefined> = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v))
  const query = q.toString()
  return `#/${view}${query ? `?${query}` : ''}`
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}
