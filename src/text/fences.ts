/**
 * Markdown code fences, as the chunker and the entry scanner both read them (pure): inside a
 * fence, headings and comments are text. One rule for both, so an entry never ends where
 * the chunker sees code.
 */

/** A fence line: up to three spaces, then three or more backticks or tildes. */
export const FENCE = /^ {0,3}(`{3,}|~{3,})/

/**
 * The fence open after `line`, given the one open before it (null: none). A fence closes at
 * a line of the same character, at least as long, and nothing else. `marker`: the line's
 * FENCE group (undefined: it is no fence line), which the chunker reads for more.
 */
export function fenceAfter(fence: string | null, line: string, marker: string | undefined): string | null {
  if (marker === undefined) return fence
  if (fence === null) return marker
  return marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker ? null : fence
}
