/**
 * The long queries of issue 35: SciFact claims of 15 to 25 words (the first 300) from the
 * SciFact set's queries.jsonl in `set` (../shared/eval/scifact).
 */
import fs from 'node:fs'
import path from 'node:path'

export function scifactClaims(set: string): string[] {
  return fs
    .readFileSync(path.join(set, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { question: string }).question)
    .filter((q) => {
      const words = q.split(/\s+/).length
      return words >= 15 && words <= 25
    })
    .slice(0, 300)
}
