/**
 * The folders an import would make, checked against MNEMO_MAX_FOLDERS_PER_AGENT before it
 * writes anything (issue 30). A write makes each missing folder of its path, outermost
 * first, and the space's folder budget (folder-budget.ts) refuses one more once the space
 * has as many as allowed; walking an archive's files here by the same rule meets that
 * refusal before the first file instead of after the hundredth folder.
 */
import type { FolderSurvey } from '../files/folder-budget.js'
import { appError } from '../shared/errors.js'

/** The folders of a workspace-relative file path, outermost first: `memory/a/b.md` → `memory`, `memory/a`. */
export function foldersOf(rel: string): string[] {
  const parts = rel.split('/').slice(0, -1)
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}

/**
 * The folders writing `files` in this order would make, in the order they would be made
 * (each folder once); throws 409 FOLDER_LIMIT naming the entry of the first file that would
 * need a folder while the space already has `maxFolders`. As in the budget, a folder may be
 * made while the space has fewer than the cap, and only folders under a source folder count.
 */
export function planFolders(files: readonly { rel: string; entry: string }[], survey: FolderSurvey): string[] {
  const made: string[] = []
  let have = survey.have
  for (const f of files) {
    for (const dir of foldersOf(f.rel)) {
      const counted = survey.missing.get(dir)
      if (counted === undefined || made.includes(dir)) continue
      if (have >= survey.maxFolders) {
        throw appError(
          'FOLDER_LIMIT',
          `Archive entry "${f.entry}": its memory would have more than ${survey.maxFolders} folders ` +
            '(MNEMO_MAX_FOLDERS_PER_AGENT); nothing was written',
          { details: { entry: f.entry, maxFolders: survey.maxFolders } },
        )
      }
      made.push(dir)
      if (counted) have++
    }
  }
  return made
}
