/**
 * The text a chunk is embedded from: its enclosing headings, then its text. Headings say
 * what a section is about ("2026-02-16 / deploy"), which the lines themselves often leave
 * out. The SHA-256 of this text is the chunk's content hash and the embedding cache key.
 */
import { sha256 } from '../domain/hashing.js'

export function embedInput(headings: string, text: string): string {
  return headings ? `${headings}\n\n${text}` : text
}

export function embedInputHash(headings: string, text: string): string {
  return sha256(embedInput(headings, text))
}
