/**
 * The frame of every view: the navigation, whom the console acts for (the admin picks an
 * agent and a user; an agent token acts for its own) and sign-out.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { makeCtx } from './context.js'
import { href, useRoute, type View } from './route.js'
import type { Session } from './session.js'
import { Files } from './views/files.js'
import { Live } from './views/live.js'
import { Overview } from './views/overview.js'
import { Playground } from './views/playground.js'
import { Searches } from './views/searches.js'

const NAV: [View, string][] = [
  ['overview', 'Overview'],
  ['files', 'Memory'],
  ['search', 'Search'],
  ['live', 'Live'],
  ['searches', 'Searched for'],
]

export function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute()
  const agent = route.params.get('agent')
  const user = route.params.get('user')
  const ctx = useMemo(() => makeCtx(session, { agent, user }), [session, agent, user])
  const [agents, setAgents] = useState<string[]>([])
  const [users, setUsers] = useState<string[]>([])
  const admin = session.role === 'admin'
  useEffect(() => {
    if (!admin) return
    ctx
      .clientAs({ agent: null, user: null })
      .agents()
      .then((list) => setAgents(list.agents.map((a) => a.id)))
      .catch(() => setAgents([]))
  }, [admin, ctx])
  useEffect(() => {
    if (!admin) return
    ctx
      .clientAs({ agent, user: null })
      .users()
      .then((list) => setUsers(list.users.map((u) => u.id)))
      .catch(() => setUsers([]))
  }, [admin, agent, ctx])
  const go = (params: { agent: string | null; user: string | null }) => {
    location.hash = href(route.view, { ...Object.fromEntries(route.params), ...params })
  }
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={ctx.link('overview')}>
          mnemo
        </a>
        <nav aria-label="Views">
          {NAV.map(([view, label]) => (
            <a href={ctx.link(view)} aria-current={route.view === view ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="acting">
          {admin ? (
            <>
              <label>
                Agent{' '}
                <select value={agent ?? ''} onChange={(e) => go({ agent: e.currentTarget.value || null, user: null })}>
                  <option value="">main</option>
                  {agents
                    .filter((id) => id !== 'main')
                    .map((id) => (
                      <option value={id}>{id}</option>
                    ))}
                </select>
              </label>
              <label>
                User{' '}
                <select value={user ?? ''} onChange={(e) => go({ agent, user: e.currentTarget.value || null })}>
                  <option value="">(shared memory)</option>
                  {users.map((id) => (
                    <option value={id}>{id}</option>
                  ))}
                </select>
              </label>
            </>
          ) : (
            <span>Acting as this token's agent</span>
          )}
          <button type="button" class="quiet" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {route.view === 'overview' && <Overview ctx={ctx} />}
        {route.view === 'files' && <Files ctx={ctx} params={route.params} />}
        {route.view === 'search' && <Playground ctx={ctx} />}
        {route.view === 'live' && <Live ctx={ctx} />}
        {route.view === 'searches' && <Searches ctx={ctx} />}
      </main>
    </div>
  )
}
