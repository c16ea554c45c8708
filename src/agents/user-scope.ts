/**
 * Which memory a path reaches for a request acting for a user, or for none (SPEC §11),
 * pure. Paths under `users/<id>/` are user `<id>`'s private memory: only a request acting
 * for that user reaches them, and every other request is refused with one answer that says
 * nothing of whether the user or the file exists. A request acting for a user writes under
 * its own `users/<id>/` only; it reads the agent's shared memory and the team's too.
 */
import { appError } from '../shared/errors.js'
import { type Actor, USERS_DIR, userPrefix } from '../shared/agent-id.js'

/** Where a path leads: into the acting user's memory (`rel` inside its folder), or elsewhere. */
export type UserRoute = { kind: 'user'; user: string; rel: string; prefix: string } | { kind: 'shared' }

/** The refusal of any path under `users/` a request may not reach: the same whatever is there. */
export const userPathForbidden = () =>
  appError(
    'USER_FORBIDDEN',
    `Paths under ${USERS_DIR}/ are the private memory of the agent's users: only a request acting for that user ` +
      '(X-Mnemo-User, or a token bound to it) reaches them',
  )

/** The refusal of a write outside its user's memory by a request acting for a user. */
export const sharedReadOnly = (user: string) =>
  appError(
    'PATH_READ_ONLY',
    `A request acting for user "${user}" writes only its own memory, under ${userPrefix(user)}: the agent's ` +
      'shared memory and the team memory are read-only to it',
  )

/**
 * Routes `raw` for `who`. `users` itself and anything under `users/` that is not the
 * acting user's own folder is refused; with `write`, a request for a user is refused
 * anywhere but its own folder.
 */
export function routeUserPath(who: Actor, raw: string, access: 'read' | 'write'): UserRoute {
  if (raw === USERS_DIR || raw.startsWith(`${USERS_DIR}/`)) {
    if (who.user === null || !raw.startsWith(userPrefix(who.user))) throw userPathForbidden()
    const prefix = userPrefix(who.user)
    return { kind: 'user', user: who.user, rel: raw.slice(prefix.length), prefix }
  }
  if (access === 'write' && who.user !== null) throw sharedReadOnly(who.user)
  return { kind: 'shared' }
}
