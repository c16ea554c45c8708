/**
 * Whether a listen address is reachable from this machine only. Without a token mnemo
 * listens only there unless MNEMO_ALLOW_NO_TOKEN=true (SPEC §7, "Safe by default").
 */

/** localhost, ::1 (bracketed or not) and 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase()
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

/**
 * Whether the service would answer other machines with no token at all: refused at start-up
 * unless MNEMO_ALLOW_NO_TOKEN=true, and warned about when it is.
 */
export function openWithoutToken(host: string, apiToken: string | undefined, agentTokens: number): boolean {
  return !isLoopbackHost(host) && apiToken === undefined && agentTokens === 0
}
