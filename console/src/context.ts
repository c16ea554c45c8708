import type { Mnemo } from '../../src/client/index.js'
import { clientFor, type Acting } from './api.js'
import { href, type View } from './route.js'
import type { Session } from './session.js'

/** What every view gets: the session, whom it acts for, a client for that, and links that keep it. */
export type Ctx = {
  session: Session
  acting: Acting
  client: Mnemo
  clientAs(acting: Acting): Mnemo
  link(view: View, params?: Record<string, string | number | null | undefined>): string
}

export function makeCtx(session: Session, acting: Acting): Ctx {
  return {
    session,
    acting,
    client: clientFor(session.token, acting),
    clientAs: (other) => clientFor(session.token, other),
    link: (view, params = {}) => href(view, { agent: acting.agent, user: acting.user, ...params }),
  }
}
