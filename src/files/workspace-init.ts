/**
 * First-run convenience: a missing workspace directory is created with `memory/` and an
 * example MEMORY.md, so `npm run serve` on a fresh clone has something to search. An
 * existing workspace is never touched.
 */
import fs from 'node:fs'
import path from 'node:path'
import { MEMORY_DIR, MEMORY_FILE } from '../domain/layout.js'

const EXAMPLE_MEMORY = `# MEMORY.md

Long-term facts the agent keeps across sessions. mnemo indexes this file and everything
under memory/ (daily logs such as memory/2026-02-16.md) and serves them over HTTP.

## Preferences
- The user prefers answers in Chinese for casual talk and English for code reviews.
- 用户喜欢简洁的回答，代码示例用 TypeScript。

## Setup
- Default model upgraded from qwen-plus to qwen-max (将默认模型从 qwen-plus 升级为 qwen-max).
- Database connection string lives in POSTGRES_URL.
`

/** Creates the workspace when missing; returns true when it did. */
export function ensureWorkspace(root: string): boolean {
  if (fs.existsSync(root)) return false
  fs.mkdirSync(path.join(root, MEMORY_DIR), { recursive: true })
  fs.writeFileSync(path.join(root, MEMORY_FILE), EXAMPLE_MEMORY, { flag: 'wx' })
  return true
}
