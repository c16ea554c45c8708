/**
 * mnemo's face in Swagger UI at /docs: the page title, the top bar's logo (in place of the
 * default Swagger one) and the favicon, as small SVGs written here rather than image files.
 */

/** The mark: an "m" in a violet rounded square, 32×32. */
const MARK =
  '<rect x="2" y="2" width="28" height="28" rx="7" fill="#6d4aff"/>' +
  '<text x="16" y="22.5" text-anchor="middle" font-family="system-ui, -apple-system, Segoe UI, sans-serif" ' +
  'font-size="19" font-weight="700" fill="#fff">m</text>'

/** The top bar's logo: the mark and the name, white on Swagger UI's dark bar (shown 40 px high). */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="132" height="32" viewBox="0 0 132 32">' +
  MARK +
  '<text x="40" y="23" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="22" ' +
  'font-weight="600" fill="#fff">mnemo</text></svg>'

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${MARK}</svg>`

/** Options of @fastify/swagger-ui: `logo` and `theme`. */
export const swaggerUiLook = {
  logo: { type: 'image/svg+xml', content: LOGO_SVG },
  theme: {
    title: 'mnemo API',
    favicon: [{ filename: 'mnemo.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON_SVG }],
  },
}
