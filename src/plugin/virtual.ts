import type { Harness, JsonValue } from '../define/types.js'

/** The id users import. */
export const VIRTUAL_ID = 'virtual:oac'
/** The same module under a name no bundler reads as a URL scheme (webpack does read `virtual:` as one). */
export const VIRTUAL_ALIAS = '~oac'
/** The resolved id: the `\0` prefix keeps other plugins (node-resolve, sourcemaps) away from it. */
export const RESOLVED_VIRTUAL_ID = '\0virtual:oac'

export const virtualIdFilter = /^(?:virtual:oac|~oac)$/
// `\x00`, not `\0`: esbuild hands the pattern to Go's regexp, which has no `\0` escape.
export const resolvedVirtualIdFilter = /^\x00virtual:oac$/

/** The compiled manifest as the app sees it: plain data, no absolute paths (see client.d.ts). */
export interface OacManifest {
  config: string
  harnesses: Harness[]
  nativeTools: boolean
  serverName: string
  agents: Array<{
    name: string
    description: string
    mode: 'subagent' | 'primary' | 'all'
    tools: string[]
    model: Partial<Record<Harness, string>>
  }>
  tools: Array<{
    name: string
    description: string
    json: boolean
    schemaKind: 'zod' | 'typebox'
    schema: { [key: string]: JsonValue }
    /** The bundled tool script, relative to the target. */
    script: string
  }>
  /** Every generated file, relative to the target. */
  files: string[]
}

/**
 * virtual:oac while the registry does not compile and the build already failed with its diagnostics:
 * every export is there (empty), so the app's imports add no second error for the same problem.
 */
export const FAILED_MANIFEST_MODULE = (() => {
  const empty: OacManifest = { config: '', harnesses: [], nativeTools: false, serverName: '', agents: [], tools: [], files: [] }
  const named = Object.keys(empty).map((key) => `export const ${key} = manifest.${key}\n`)
  return `const manifest = ${JSON.stringify(empty)}\nexport default manifest\n${named.join('')}`
})()
