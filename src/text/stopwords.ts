/**
 * Query-side stopwords. They stay in the index (a query made only of stopwords still
 * matches), but are dropped from queries that have other terms: they add nothing to BM25
 * (near-zero IDF) and make FTS5 walk posting lists that cover almost every chunk.
 */

/** English function words, question words and contraction leftovers (`don't` → `t`). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before
  being below between both but by can could did do does doing down during each few for from
  further had has have having he her here hers herself him himself his how i if in into is it
  its itself just me more most my myself no nor not now of off on once only or other our ours
  ourselves out over own same she should so some such than that the their theirs them
  themselves then there these they this those through to too under until up very was we were
  what when where which while who whom why will with would you your yours yourself yourselves
  s t d ll m re ve don doesn didn isn wasn aren weren won wouldn shouldn couldn cannot
  also ever get got may might must shall us yes via per`
    .split(/\s+/)
    .filter(Boolean),
)

/**
 * Chinese function words and question words. Queries are segmented with Intl.Segmenter and
 * these segments split a CJK run, so `内托的国籍是哪个国家` yields 内托 / 国籍 / 国家 and no
 * bigram that straddles 的 or 是.
 */
export const CJK_STOPWORDS: ReadonlySet<string> = new Set(
  `的 了 是 在 和 与 及 或 也 都 就 而 被 把 对 从 为 以 于 由 之 其 这 那 这个 那个 这些 那些
  一个 哪 哪个 哪些 哪里 哪儿 哪一 哪位 哪年 什么 啥 谁 何 何时 何地 多少 几 怎么 怎样 怎么样 如何
  为什么 为何 吗 呢 吧 啊 呀 么 请问 是否 是不是 有没有 还是 我 你 他 她 它 我们 你们 他们
  の は が を に で と も へ や か です ます した する こと それ これ`
    .split(/\s+/)
    .filter(Boolean),
)
