import { useState } from 'preact/hooks'
import { describeError } from '../api.js'
import { probe, type Session } from '../session.js'

/** The token form: a wrong token says so, and nothing is kept until one is accepted. */
export function SignIn({ onSession }: { onSession: (s: Session) => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const session = await probe(token.trim())
      if (session) onSession(session)
      else setError('That token was not accepted (401 UNAUTHORIZED). Use MNEMO_API_TOKEN or an agent token.')
    } catch (err) {
      setError(describeError(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="centered">
      <form class="card sign-in" onSubmit={(e) => void submit(e)}>
        <h1>mnemo</h1>
        <p>Sign in with the admin token or an agent token. It is kept in this tab only.</p>
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="current-password"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}
