/**
 * Unicode script classes used by the analyzer and the token estimate. "CJK" here means the
 * scripts written without spaces between words (Han, Hiragana, Katakana) plus Hangul, whose
 * words carry attached particles; all of them are indexed as character n-grams.
 */
const CJK_CLASS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆`

/** One CJK character. */
export const CJK_CHAR = new RegExp(`[${CJK_CLASS}]`, 'v')

/**
 * Runs of CJK characters (group 1) or of other letters, digits and marks joined by the
 * connectors that build identifiers and dates (group 2): `qwen-max`, `POSTGRES_URL`,
 * `2026-02-16`, `v1.2.3`, `a/b`, `user@host`.
 */
export const TEXT_RUN = new RegExp(
  `([${CJK_CLASS}]+)|([[\\p{L}\\p{N}\\p{M}]--[${CJK_CLASS}]]+(?:[\\-_.:\\/@+#][[\\p{L}\\p{N}\\p{M}]--[${CJK_CLASS}]]+)*)`,
  'gv',
)

/**
 * TEXT_RUN for text that is all ASCII, with the same groups: the only ASCII characters in
 * [\p{L}\p{N}\p{M}] are letters and digits, and group 1 (CJK) matches no ASCII text. The
 * Unicode sets cost about twice as much per word, and snippets analyse every line of the
 * results, most of them ASCII.
 */
export const ASCII_TEXT_RUN = /([\u0080-\uffff]+)|([A-Za-z0-9]+(?:[-_.:/@+#][A-Za-z0-9]+)*)/g

/** Whether `text` has a character outside ASCII. */
export const NON_ASCII = /[\u0080-\uffff]/
