/**
 * Keeps web pages out when no token is set (SPEC §7, issue 9): mnemo then trusts whoever
 * can reach its socket, so a page in the user's browser must not be able to use it.
 * - DNS rebinding: a request whose Host is not this machine (localhost, 127.0.0.1, [::1]),
 *   the configured MNEMO_HOST, or a name in MNEMO_ALLOWED_HOSTS → 421 HOST_NOT_ALLOWED.
 * - Cross-site requests (a form or fetch from another page can POST text/plain without a
 *   preflight): an Origin that is neither this server's own nor in MNEMO_ALLOWED_ORIGINS,
 *   or a Sec-Fetch-Site other than same-origin or none → 403 ORIGIN_FORBIDDEN. Another port
 *   on localhost is another origin, though the browser calls it "same-site".
 * Pure: the decision from the request's headers.
 */

export type BrowserPolicy = {
  /** Host names (lower case, IPv6 without brackets) requests may be addressed to. */
  hosts: ReadonlySet<string>
  /** Origins (scheme://host[:port]) of pages allowed to call the API. */
  origins: ReadonlySet<string>
}

export type GuardVerdict = { ok: true } | { ok: false; code: 'HOST_NOT_ALLOWED' | 'ORIGIN_FORBIDDEN'; message: string }

/** Names that always mean this machine. */
const LOOPBACK = ['localhost', '127.0.0.1', '::1']

export function browserPolicy(opts: {
  listenHost: string
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
}): BrowserPolicy {
  const listen = opts.listenHost === '0.0.0.0' || opts.listenHost === '::' ? [] : [opts.listenHost]
  return {
    hosts: new Set([...LOOPBACK, ...listen, ...opts.allowedHosts].map(hostName)),
    origins: new Set(opts.allowedOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase())),
  }
}

/** The host name of a Host header value (`[::1]:8787` → `::1`), lower case. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined)
  const colons = h.split(':').length - 1
  // One colon: name:port. More: a bare IPv6 address.
  return colons === 1 ? (h.split(':')[0] as string) : h
}

export function checkBrowserRequest(
  headers: { host?: string | undefined; origin?: string | undefined; secFetchSite?: string | undefined },
  policy: BrowserPolicy,
): GuardVerdict {
  const host = headers.host ?? ''
  if (!policy.hosts.has(hostName(host))) {
    return {
      ok: false,
      code: 'HOST_NOT_ALLOWED',
      message: `Requests to "${host}" are not served without a token: use localhost, or list the name in MNEMO_ALLOWED_HOSTS`,
    }
  }
  const origin = headers.origin?.toLowerCase()
  if (origin !== undefined && policy.origins.has(origin)) return { ok: true }
  const sameOrigin =
    origin === undefined || origin === `http://${host.toLowerCase()}` || origin === `https://${host.toLowerCase()}`
  const site = headers.secFetchSite?.toLowerCase()
  const browserSaysOk = site === undefined || site === 'same-origin' || site === 'none'
  if (sameOrigin && browserSaysOk) return { ok: true }
  return {
    ok: false,
    code: 'ORIGIN_FORBIDDEN',
    message: `Requests from web pages of another origin (${origin ?? site ?? 'unknown'}) are refused without a token: list the origin in MNEMO_ALLOWED_ORIGINS`,
  }
}
