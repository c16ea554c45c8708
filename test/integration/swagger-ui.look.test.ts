import { afterEach, describe, expect, it } from 'vitest'
import { FAVICON_SVG, LOGO_SVG } from '../../src/http/plugins/swagger-theme.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

let t: TestApp
afterEach(() => t.close())

describe('Swagger UI at /docs shows mnemo, not the framework', () => {
  it('has mnemo’s title, favicon and top-bar logo', async () => {
    t = await buildTestApp()
    const page = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(page.body).toContain('<title>mnemo API</title>')
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page.body)?.[1]
    expect(icon).toBeDefined()
    const favicon = await t.app.inject({ method: 'GET', url: `/docs/${icon as string}` })
    expect(favicon.headers['content-type']).toBe('image/svg+xml')
    expect(favicon.body).toBe(FAVICON_SVG)
    // The initializer swaps the top bar's logo for ours (a data URL), in the browser.
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
    expect(init.body).toContain(`data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString('base64')}`)
  })
})
