/**
 * Deterministic synthetic memory workspace for benchmarks: day files of mixed Chinese and
 * English notes with identifiers, one `##` section per chunk-sized note.
 *
 * The text follows the shape of real prose: function words make up about half of the
 * tokens, content words are Zipf-distributed over a vocabulary of a few thousand words per
 * language (real 4 MB of text has tens of thousands), so a query's rarer words select a
 * small part of the index while its common words occur everywhere. Queries come in two
 * sets: typical ones (content words, identifiers, questions) and a worst case made only of
 * the most common content words.
 */
import fs from 'node:fs'
import path from 'node:path'

/** Small seeded PRNG (mulberry32) so every run benchmarks the same text. */
export function createRandom(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    /** Index in [0, n) with Zipf frequencies (rank r has weight ~1/(r+1)). */
    zipf: (n: number) => Math.min(n - 1, Math.floor(Math.exp(next() * Math.log(n + 1)) - 1)),
  }
}

export type Random = ReturnType<typeof createRandom>

const EN_FUNCTION = `the of and to a in is that for it was on with as be at by this have from or an are not but we
they which you he his has had were their been will would can there all so if more when no out up about into than
them what some could our other only then its also after`.split(/\s+/)

const EN_DOMAIN = `memory agent user model deploy service database query index search vector cache latency request
response error retry timeout config token session note meeting plan release review test build pipeline cluster
node worker queue schedule backup restore migrate schema table column update delete insert select join filter rank
score weight embedding rerank chunk file path line workspace project team customer feedback issue bug fix patch
feature design doc spec api route endpoint client server proxy gateway auth key secret rotate expire monitor alert
metric log trace dashboard incident postmortem oncall budget cost invoice contract vendor roadmap milestone sprint
standup retro goal risk decision owner deadline priority status blocked progress estimate python typescript rust
golang docker kubernetes postgres redis kafka nginx linux ubuntu tokyo london berlin paris singapore shanghai
beijing shenzhen travel flight hotel`.split(/\s+/)

const ZH_FUNCTION = '的 了 是 在 和 有 也 就 都 而 与 对 把 被 从 向 为 以 于 这 那 个 我们 他们'.split(' ')

const ZH_DOMAIN =
  `记忆 模型 部署 服务 数据库 查询 索引 检索 向量 缓存 延迟 请求 响应 错误 重试 超时 配置 会话 笔记 会议 计划
发布 评审 测试 构建 流水线 集群 节点 队列 调度 备份 恢复 迁移 字段 更新 删除 插入 排序 权重 嵌入 重排 分块 文件
路径 工作区 项目 团队 客户 反馈 问题 缺陷 修复 补丁 功能 设计 文档 接口 路由 网关 鉴权 密钥 轮换 过期 监控 告警
指标 日志 链路 看板 事故 复盘 值班 预算 成本 合同 供应商 路线图 里程碑 目标 风险 决策 负责人 截止 优先级 状态
阻塞 进展 估算 用户 偏好 回答 周末 安排 升级 回滚 灰度 上线 扩容 缩容 性能 稳定 分词 召回 排名 语义 关键词`.split(/\s+/)

/** Common Chinese characters; generated content words are pairs of them. */
const ZH_CHARS =
  '一是不人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校志飞观争究包组造落视济喜离虽坐集编宝谈府拉黑且随格尽剑讲布杀微怕母调局根曾准团段终乐切级克精哪官示冷域'

const IDENT_WORDS = 'user order payment cache model index queue token session config deploy search vector'.split(' ')

/** A vocabulary: function words first, then content words in Zipf rank order. */
function buildVocabulary(seed: number) {
  const r = createRandom(seed)
  const syllables = 'ka ri mo tan sel vor pi lu ne dor mik sa gre tol bin fa wen pra cus do lem'.split(' ')
  const enWords = new Set(EN_DOMAIN)
  while (enWords.size < 4000) {
    const n = 2 + r.int(2)
    enWords.add(Array.from({ length: n }, () => syllables[r.int(syllables.length)]).join(''))
  }
  const zhChars = Array.from(ZH_CHARS)
  const zhWords = new Set(ZH_DOMAIN)
  while (zhWords.size < 3000) zhWords.add(`${zhChars[r.int(zhChars.length)]}${zhChars[r.int(zhChars.length)]}`)
  const identifiers = new Set([
    'POSTGRES_URL',
    'REDIS_HOST',
    'qwen-max',
    'qwen-plus',
    'gpt-4o',
    'api-gateway',
    'MODEL_NAME',
    'v2.3.1',
  ])
  while (identifiers.size < 300) {
    const [a, b] = [IDENT_WORDS[r.int(IDENT_WORDS.length)] as string, IDENT_WORDS[r.int(IDENT_WORDS.length)] as string]
    const style = r.int(3)
    identifiers.add(
      style === 0
        ? `${a}_${b}_${r.int(100)}`.toUpperCase()
        : style === 1
          ? `${a}-${b}-v${r.int(10)}`
          : `${a}${b[0]?.toUpperCase()}${b.slice(1)}${r.int(10)}`,
    )
  }
  return { en: [...enWords], zh: [...zhWords], identifiers: [...identifiers] }
}

const VOCAB = buildVocabulary(1)

function englishSentence(r: Random): string {
  const n = 8 + r.int(12)
  const words: string[] = []
  for (let i = 0; i < n; i++) {
    words.push(
      r.next() < 0.45
        ? (EN_FUNCTION[r.zipf(EN_FUNCTION.length)] as string)
        : (VOCAB.en[r.zipf(VOCAB.en.length)] as string),
    )
  }
  if (r.next() < 0.3) words.splice(r.int(n), 0, VOCAB.identifiers[r.zipf(VOCAB.identifiers.length)] as string)
  const s = words.join(' ')
  return `${s[0]?.toUpperCase()}${s.slice(1)}.`
}

function chineseSentence(r: Random): string {
  const n = 6 + r.int(10)
  let s = ''
  for (let i = 0; i < n; i++) {
    s += r.next() < 0.3 ? ZH_FUNCTION[r.zipf(ZH_FUNCTION.length)] : VOCAB.zh[r.zipf(VOCAB.zh.length)]
    if (r.next() < 0.05) s += ` ${VOCAB.identifiers[r.zipf(VOCAB.identifiers.length)]} `
  }
  return `${s}。`
}

/** One note: a `##` heading and 5–9 bullet lines of mixed Chinese and English. */
function note(r: Random, hour: number, minute: number): string {
  const topic = `${VOCAB.en[r.zipf(VOCAB.en.length)]} ${VOCAB.zh[r.zipf(VOCAB.zh.length)]}`
  const lines = [`## ${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')} — ${topic}`]
  const sentences = 5 + r.int(5)
  for (let i = 0; i < sentences; i++) lines.push(`- ${r.next() < 0.5 ? englishSentence(r) : chineseSentence(r)}`)
  return lines.join('\n')
}

/**
 * Writes `files` day files of `notesPerFile` notes each under `root/memory/`, plus a
 * MEMORY.md. Each note is one chunk at the default chunk size (400 tokens).
 */
export function writeCorpus(root: string, files: number, notesPerFile: number, seed = 42): void {
  const r = createRandom(seed)
  fs.mkdirSync(path.join(root, 'memory'), { recursive: true })
  fs.writeFileSync(path.join(root, 'MEMORY.md'), `# MEMORY.md\n\n${note(r, 0, 0)}\n`)
  const start = Date.UTC(2024, 0, 1)
  for (let f = 0; f < files; f++) {
    const day = new Date(start + f * 86_400_000).toISOString().slice(0, 10)
    const notes = Array.from({ length: notesPerFile }, (_, i) => note(r, 8 + Math.floor(i / 6), (i % 6) * 10))
    fs.writeFileSync(path.join(root, 'memory', `${day}.md`), `# ${day}\n\n${notes.join('\n\n')}\n`)
  }
}

/**
 * Chinese prose of about `bytes` UTF-8 bytes: lines of 30–80 common characters with
 * punctuation, as a long log or an imported document would be.
 */
export function chineseText(bytes: number, seed = 3): string {
  const r = createRandom(seed)
  const chars = Array.from(ZH_CHARS)
  const lines: string[] = []
  let size = 0
  while (size < bytes) {
    let line = ''
    const n = 30 + r.int(50)
    for (let i = 0; i < n; i++) line += chars[r.zipf(chars.length)] + (r.next() < 0.08 ? '，' : '')
    line += '。'
    lines.push(line)
    size += Buffer.byteLength(line) + 1
  }
  return `${lines.join('\n')}\n`
}

/** Typical queries: English content words, Chinese phrases, identifiers, questions. */
export function makeQueries(count: number, seed = 7): string[] {
  const r = createRandom(seed)
  const en = () => VOCAB.en[r.zipf(VOCAB.en.length)] as string
  const zh = () => VOCAB.zh[r.zipf(VOCAB.zh.length)] as string
  const queries: string[] = []
  for (let i = 0; i < count; i++) {
    switch (i % 4) {
      case 0:
        queries.push(Array.from({ length: 2 + r.int(3) }, en).join(' '))
        break
      case 1:
        queries.push(Array.from({ length: 2 + r.int(2) }, zh).join(''))
        break
      case 2:
        queries.push(`${VOCAB.identifiers[r.zipf(VOCAB.identifiers.length)]} ${zh()}${zh()}`)
        break
      default:
        queries.push(`what did we decide about the ${en()} ${en()}?`)
    }
  }
  return queries
}

/** Worst case: queries made only of the 20 most common content words of each language. */
export function makeCommonQueries(count: number, seed = 11): string[] {
  const r = createRandom(seed)
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? Array.from({ length: 2 + r.int(2) }, () => VOCAB.en[r.int(20)]).join(' ')
      : Array.from({ length: 2 + r.int(2) }, () => VOCAB.zh[r.int(20)]).join(''),
  )
}
