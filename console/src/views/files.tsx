/**
 * The memory browser: the files of the acting agent (or user) as a tree, its day files as a
 * timeline, and one file with its lines numbered, its entries' metadata shown, opened at the
 * lines a search result named (`lines=L10-L12`). Edits save with If-Match, so a file changed
 * underneath is caught (file-editor.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { describeError, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'
import { FileView } from './file-view.js'

const DAY_FILE = /(?:^|\/)memory\/(\d{4}-\d{2}-\d{2})[^/]*\.md$/

export function Files({ ctx, params }: { ctx: Ctx; params: URLSearchParams }) {
  const path = params.get('path')
  const [files, setFiles] = useState<Schemas['FileInfo'][] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [version, setVersion] = useState(0)
  useEffect(() => {
    ctx.client
      .list()
      .then((list) => {
        setFiles(list)
        setError(null)
      })
      .catch((err) => setError(describeError(err)))
  }, [ctx, version])
  const days = (files ?? [])
    .map((f) => ({ file: f, day: DAY_FILE.exec(f.path)?.[1] }))
    .filter((d): d is { file: Schemas['FileInfo']; day: string } => d.day !== undefined)
    .sort((a, b) => b.day.localeCompare(a.day) || a.file.path.localeCompare(b.file.path))
  return (
    <div class="browser">
      <aside class="file-list">
        <h1>Memory</h1>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {files && files.length === 0 && <p>No files yet.</p>}
        {files && files.length > 0 && (
          <>
            <nav aria-label="Files">
              <Tree ctx={ctx} files={files} current={path} />
            </nav>
            {days.length > 0 && (
              <nav aria-label="Timeline">
                <h2>Timeline</h2>
                <ol class="timeline">
                  {days.map(({ file, day }) => (
                    <li>
                      <a
                        href={ctx.link('files', { path: file.path })}
                        aria-current={file.path === path ? 'page' : undefined}
                      >
                        <time dateTime={day}>{day}</time> <span class="detail">{file.path}</span>
                      </a>
                    </li>
                  ))}
                </ol>
              </nav>
            )}
          </>
        )}
      </aside>
      <section class="file-pane">
        {path ? (
          <FileView ctx={ctx} path={path} anchor={params.get('lines')} onChanged={() => setVersion((v) => v + 1)} />
        ) : (
          <p class="hint">Pick a file, or open one from a search result.</p>
        )}
      </section>
    </div>
  )
}

type Folder = { name: string; folders: Map<string, Folder>; files: Schemas['FileInfo'][] }

function treeOf(files: Schemas['FileInfo'][]): Folder {
  const root: Folder = { name: '', folders: new Map(), files: [] }
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = f.path.split('/')
    let at = root
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part)
      if (!next) at.folders.set(part, (next = { name: part, folders: new Map(), files: [] }))
      at = next
    }
    at.files.push(f)
  }
  return root
}

function Tree({ ctx, files, current }: { ctx: Ctx; files: Schemas['FileInfo'][]; current: string | null }) {
  return <FolderList ctx={ctx} folder={treeOf(files)} current={current} />
}

function FolderList({ ctx, folder, current }: { ctx: Ctx; folder: Folder; current: string | null }) {
  return (
    <ul class="tree">
      {[...folder.folders.values()].map((sub) => (
        <li>
          <details open>
            <summary>{sub.name}/</summary>
            <FolderList ctx={ctx} folder={sub} current={current} />
          </details>
        </li>
      ))}
      {folder.files.map((f) => (
        <li>
          <a href={ctx.link('files', { path: f.path })} aria-current={f.path === current ? 'page' : undefined}>
            {f.path.split('/').pop()}
          </a>{' '}
          <span class="detail">
            {f.lines} lines · {f.chunks} chunks{f.space !== 'agent' ? ` · ${f.space}` : ''}
          </span>
        </li>
      ))}
    </ul>
  )
}
