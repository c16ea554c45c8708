/**
 * The mnemo console (docs/manual.md, "The console"): sign-in, then the overview, the memory browser,
 * the search playground, live changes and the search log, each a view of the address
 * (route.ts). Everything shown comes from the API with the token signed in, so an agent
 * token sees what its API calls see and no more. Memory content is text: it is never parsed
 * as HTML (Preact sets text nodes), and the page's Content-Security-Policy runs no inline
 * script.
 */
import 'uplot/dist/uPlot.min.css'
import './console.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { describeError } from './api.js'
import { keepToken, probe, storedToken, type Session } from './session.js'
import { Shell } from './shell.js'
import { SignIn } from './views/sign-in.js'

function App() {
  const [session, setSession] = useState<Session | null | 'checking'>('checking')
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    probe(storedToken())
      .then((s) => {
        if (!s) keepToken(null)
        setSession(s)
      })
      .catch((err) => setError(describeError(err)))
  }, [])
  if (error) {
    return (
      <main class="centered">
        <p role="alert">The service did not answer: {error}</p>
      </main>
    )
  }
  if (session === 'checking') return <p class="loading">Connecting…</p>
  if (!session) {
    return (
      <SignIn
        onSession={(s) => {
          keepToken(s.token)
          setSession(s)
        }}
      />
    )
  }
  return (
    <Shell
      session={session}
      onSignOut={() => {
        keepToken(null)
        setSession(null)
      }}
    />
  )
}

render(<App />, document.getElementById('app') as HTMLElement)
