/**
 * One memory file: numbered lines, each entry's metadata as badges (superseded entries
 * dimmed), the lines a link named marked and scrolled to. Edit saves with If-Match: the hash
 * the file had when it was read. A 412 means it changed underneath: both versions are shown
 * and nothing is saved until the person picks one. Delete asks first; an active entry can be
 * superseded from its metadata line.
 */
import { useEffect, useState } from 'preact/hooks'
import { describeError, isCode, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'
import { lineRange, viewLines, type ViewLine } from '../entry-lines.js'

type FileWindow = Schemas['FileWindow']
type Mode = { kind: 'view' } | { kind: 'edit'; draft: string; conflict: FileWindow | null } | { kind: 'delete' }

export function FileView(props: { ctx: Ctx; path: string; anchor: string | null; onChanged: () => void }) {
  const { ctx, path } = props
  const [file, setFile] = useState<FileWindow | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [mode, setMode] = useState<Mode>({ kind: 'view' })
  const [superseding, setSuperseding] = useState<number | null>(null)
  const range = lineRange(props.anchor)

  const read = () => ctx.client.read(path)
  const reload = async () => {
    try {
      setFile(await read())
      setError(null)
    } catch (err) {
      setFile(null)
      setError(describeError(err))
    }
  }
  useEffect(() => {
    setMode({ kind: 'view' })
    setNotice(null)
    void reload()
  }, [ctx, path])
  useEffect(() => {
    if (file && range) document.getElementById(`L${range.from}`)?.scrollIntoView({ block: 'center' })
  }, [file, props.anchor])

  const save = async (draft: string, ifMatch: string) => {
    try {
      const saved = await ctx.client.write(path, draft, { ifMatch })
      setMode({ kind: 'view' })
      setNotice(`Saved: ${saved.totalLines} lines${saved.indexed ? ', searchable now' : ''}.`)
      await reload()
      props.onChanged()
    } catch (err) {
      if (isCode(err, 'PRECONDITION_FAILED')) {
        setMode({ kind: 'edit', draft, conflict: await read().catch(() => null) })
      } else setError(describeError(err))
    }
  }
  const remove = async () => {
    if (!file) return
    try {
      await ctx.client.delete(path, { ifMatch: file.sha256 })
      props.onChanged()
      location.hash = ctx.link('files')
    } catch (err) {
      setMode({ kind: 'view' })
      setError(describeError(err))
    }
  }

  return (
    <article class="file" aria-labelledby="file-title">
      <header class="file-head">
        <h2 id="file-title">{path}</h2>
        {file && mode.kind === 'view' && (
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                setNotice(null)
                setMode({ kind: 'edit', draft: file.text, conflict: null })
              }}
            >
              Edit
            </button>
            <button type="button" class="danger" onClick={() => setMode({ kind: 'delete' })}>
              Delete…
            </button>
          </div>
        )}
      </header>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" class="good">
          {notice}
        </p>
      )}
      {file && mode.kind === 'delete' && (
        <div role="alertdialog" aria-labelledby="delete-q" class="card confirm">
          <p id="delete-q">Delete {path}? The file is removed from disk and from the index.</p>
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete file
          </button>
          <button type="button" onClick={() => setMode({ kind: 'view' })}>
            Cancel
          </button>
        </div>
      )}
      {file && mode.kind === 'edit' && (
        <Editor
          file={file}
          draft={mode.draft}
          conflict={mode.conflict}
          onDraft={(draft) => setMode({ ...mode, draft })}
          onSave={(draft, ifMatch) => void save(draft, ifMatch)}
          onCancel={() => {
            setMode({ kind: 'view' })
            void reload()
          }}
        />
      )}
      {file && mode.kind !== 'edit' && (
        <ol class="lines" aria-label={`Lines of ${path}`}>
          {viewLines(file.text, file.from).map((line) => (
            <Line
              line={line}
              hit={range !== null && line.n >= range.from && line.n <= range.to}
              superseding={superseding === line.n}
              onSupersede={(n) => setSuperseding(n)}
              onSuperseded={async (content) => {
                try {
                  await ctx.client.supersede({ path, startLine: line.n, content })
                  setSuperseding(null)
                  setNotice(`Entry at line ${line.n} superseded.`)
                  await reload()
                } catch (err) {
                  setError(describeError(err))
                }
              }}
            />
          ))}
        </ol>
      )}
    </article>
  )
}

function Line(props: {
  line: ViewLine
  hit: boolean
  superseding: boolean
  onSupersede: (n: number) => void
  onSuperseded: (content: string) => Promise<void>
}) {
  const { line } = props
  const [text, setText] = useState('')
  const classes = [props.hit && 'hit', line.status === 'superseded' && 'superseded'].filter(Boolean).join(' ')
  return (
    <li id={`L${line.n}`} class={classes} value={line.n}>
      <span class="n" aria-hidden="true">
        {line.n}
      </span>
      {line.meta ? (
        <span class="meta">
          <span class={`badge ${line.meta.status}`}>{line.meta.status}</span>
          {line.meta.origin && <span class="badge">origin: {line.meta.origin}</span>}
          {line.meta.observed && <span class="badge">observed: {line.meta.observed}</span>}
          {line.meta.key && <span class="badge">key: {line.meta.key}</span>}
          {line.meta.status === 'active' && !props.superseding && (
            <button type="button" class="small" onClick={() => props.onSupersede(line.n)}>
              Supersede…
            </button>
          )}
        </span>
      ) : (
        <span class="text">{line.text}</span>
      )}
      {props.superseding && (
        <form
          class="supersede"
          onSubmit={(e) => {
            e.preventDefault()
            void props.onSuperseded(text)
          }}
        >
          <label for={`new-${line.n}`}>New text for this entry</label>
          <textarea id={`new-${line.n}`} required value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <button type="submit">Supersede</button>
        </form>
      )}
    </li>
  )
}

function Editor(props: {
  file: FileWindow
  draft: string
  conflict: FileWindow | null
  onDraft: (draft: string) => void
  onSave: (draft: string, ifMatch: string) => void
  onCancel: () => void
}) {
  const { conflict } = props
  return (
    <form
      class="editor"
      onSubmit={(e) => {
        e.preventDefault()
        props.onSave(props.draft, props.file.sha256)
      }}
    >
      {conflict && (
        <div role="alert" class="conflict card">
          <p>
            The file changed since you opened it. Nothing was saved. Compare the two versions and choose which to keep.
          </p>
          <div class="versions">
            <section aria-labelledby="on-disk">
              <h3 id="on-disk">On disk now</h3>
              <pre>{conflict.text}</pre>
            </section>
            <section aria-labelledby="yours">
              <h3 id="yours">Your version</h3>
              <pre>{props.draft}</pre>
            </section>
          </div>
          <button type="button" class="danger" onClick={() => props.onSave(props.draft, conflict.sha256)}>
            Save mine over it
          </button>
          <button type="button" onClick={props.onCancel}>
            Keep the version on disk
          </button>
        </div>
      )}
      <label for="file-text">File content</label>
      <textarea
        id="file-text"
        class="file-text"
        spellcheck={false}
        value={props.draft}
        onInput={(e) => props.onDraft(e.currentTarget.value)}
      />
      {!conflict && (
        <div class="actions">
          <button type="submit">Save</button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      )}
    </form>
  )
}
