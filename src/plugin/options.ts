import { createRequire } from 'node:module'
import { HARNESSES, type Harness } from '../define/types.js'

/** What users pass to `oac()` in their bundler config. */
export interface OacPluginOptions {
  /** The registry module and its export: `./agents/registry.ts:registry` (or `#registry`), relative to `root`. */
  registry: string
  /** The config profile to use (default: the registry's `default` profile, else an empty one). */
  config?: string
  /**
   * Where the agent tree goes, relative to `root` (default: the bundler's output folder).
   * Any folder works, the project root `'.'` included. Inside the output folder the files are
   * emitted as build assets (and written with the bundle); outside it they are written after a
   * successful build. A build that writes nothing (`write: false`) writes no tree either.
   */
  target?: string
  /** Harnesses to emit (default: the config's, else all). */
  harnesses?: Harness[]
  /** Emit native tool forms (default: the config's, else true). */
  nativeTools?: boolean
  /**
   * The project root that relative paths resolve from. Default: Vite `root`, esbuild `absWorkingDir`,
   * webpack/Rspack `context`, else `process.cwd()`.
   */
  root?: string
  /**
   * The MCP server's name in `.mcp.json` and the Codex TOML (default `oac-tools`). In a monorepo where
   * several apps write into one target (say, the repo root), give each app its own name so each keeps
   * its own entry.
   */
  serverName?: string
  /** How native shims reach a tool: a process per call (default) or an import of the bundled module. */
  bridge?: 'process' | 'inline'
  /** Merge the MCP block into the project's `.codex/config.toml`, the route to our tools for every Codex agent (default true). */
  codexConfig?: boolean
  /**
   * Write a plugin folder, which every harness installs (Claude Code's and Codex's plugins, a Gemini CLI
   * extension, a pi package, an opencode plugin) and npm publishes as it is, in place of a project's
   * files: `dir` is the folder, relative to `root` (it takes the place of `target`); a field left out
   * comes from the project's package.json (`name` without its scope, `version`, `description`).
   */
  plugin?: PluginFolderOptions
  /**
   * `user`: install for whoever runs the build, into their home folder (each harness's user folders,
   * the scripts in `~/.local/share/oac/<serverName>/`), in place of a target (default `project`).
   */
  scope?: 'project' | 'user'
  /**
   * Overwrite user files that sit where the agent tree puts files it owns, and user keys our merge
   * entries would change (their values are recorded and put back once the entries are no longer generated).
   */
  force?: boolean
  /**
   * Skip the compile when nothing it depends on changed since the last build into the same target
   * (a record in `<root>/node_modules/.cache/oac/`; default true). See docs/builds.md, Caching.
   */
  cache?: boolean
}

export interface PluginFolderOptions {
  dir: string
  /** Lowercase letters, digits and single hyphens. */
  name?: string
  /** A semantic version, e.g. 1.0.0. */
  version?: string
  description?: string
}

/** One option's accepted values; the fast check and the zod schema (for error messages) both come from it. */
type OptionSpec =
  | { kind: 'text'; what: string }
  | { kind: 'flag' }
  | { kind: 'choice'; values: readonly [string, ...string[]]; error: string }
  | { kind: 'harnesses' }
  | { kind: 'plugin' }

const text = (what: string): OptionSpec => ({ kind: 'text', what })
const flag: OptionSpec = { kind: 'flag' }

const OPTION_SPECS: Record<keyof OacPluginOptions, OptionSpec> = {
  registry: text('the registry module and export, e.g. "./agents/registry.ts:registry"'),
  config: text('the name of a config profile of the registry'),
  target: text('a folder relative to the project root, e.g. "." or "dist"'),
  harnesses: { kind: 'harnesses' },
  nativeTools: flag,
  root: text('a folder, absolute or relative to the current directory'),
  serverName: text('a name for the MCP server entry, e.g. "app-a-tools"'),
  bridge: { kind: 'choice', values: ['process', 'inline'], error: 'expected "process" or "inline"' },
  codexConfig: flag,
  plugin: { kind: 'plugin' },
  scope: { kind: 'choice', values: ['project', 'user'], error: 'expected "project" or "user"' },
  force: flag,
  cache: flag,
}
const REQUIRED: ReadonlySet<string> = new Set(['registry'])
const PLUGIN_FIELDS: readonly string[] = ['dir', 'name', 'version', 'description']

function accepts(spec: OptionSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'text':
      return typeof value === 'string' && value.length > 0
    case 'flag':
      return typeof value === 'boolean'
    case 'choice':
      return spec.values.includes(value as string)
    case 'harnesses':
      if (!Array.isArray(value)) return false
      for (let index = 0; index < value.length; index++) if (!HARNESSES.includes(value[index] as Harness)) return false
      return true
    case 'plugin': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
      const fields: Record<string, unknown> = { ...value }
      return typeof fields.dir === 'string' && fields.dir !== '' && Object.entries(fields).every(([key, field]) => PLUGIN_FIELDS.includes(key) && typeof field === 'string' && field !== '')
    }
  }
}

/** True for valid options in a plain object: the common case, checked without loading zod (a startup cost every build pays). */
function isValid(raw: unknown): raw is OacPluginOptions {
  if (typeof raw !== 'object' || raw === null) return false
  const prototype: unknown = Object.getPrototypeOf(raw)
  if (prototype !== Object.prototype && prototype !== null) return false
  const entries = Object.entries(raw)
  for (const [key, value] of entries) {
    const spec = OPTION_SPECS[key as keyof OacPluginOptions] as OptionSpec | undefined
    if (!spec || (value === undefined ? REQUIRED.has(key) : !accepts(spec, value))) return false
  }
  if ('plugin' in raw && 'target' in raw && raw.plugin !== undefined && raw.target !== undefined) return false
  if ('scope' in raw && raw.scope === 'user' && (('target' in raw && raw.target !== undefined) || ('plugin' in raw && raw.plugin !== undefined))) return false
  return [...REQUIRED].every((key) => entries.some(([name, value]) => name === key && value !== undefined))
}

type Zod = typeof import('zod').z

/** The options as a zod schema, for the words of a rejection (and the tests' check that the fast path agrees). */
export function optionsSchema(z: Zod) {
  const fieldOf = (spec: OptionSpec) => {
    switch (spec.kind) {
      case 'text':
        return z.string({ error: `expected ${spec.what}` }).min(1, { error: `expected ${spec.what}, got an empty string` })
      case 'flag':
        return z.boolean({ error: 'expected true or false' })
      case 'choice':
        return z.enum(spec.values, { error: spec.error })
      case 'harnesses':
        return z.array(z.enum(HARNESSES as [Harness, ...Harness[]], { error: `expected one of ${HARNESSES.join(', ')}` }), {
          error: `expected an array of harness names (${HARNESSES.join(', ')})`,
        })
      case 'plugin': {
        const field = (what: string) => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}, got an empty string` })
        return z.strictObject(
          { dir: field('the plugin folder, relative to the project root'), name: field('a plugin name').optional(), version: field('a version').optional(), description: field('a description').optional() },
          { error: 'expected { dir, name?, version?, description? }' },
        )
      }
    }
  }
  const shape = Object.fromEntries(
    Object.entries(OPTION_SPECS).map(([name, spec]) => [name, REQUIRED.has(name) ? fieldOf(spec) : fieldOf(spec).optional()]),
  )
  return z
    .strictObject(shape, { error: 'expected an options object: oac({ registry: "./agents/registry.ts:registry" })' })
    .refine((options) => options.plugin === undefined || options.target === undefined, {
      error: '`plugin.dir` names the folder to write, as `target` does: give one of them',
      path: ['target'],
    })
    .refine((options) => options.scope !== 'user' || (options.target === undefined && options.plugin === undefined), {
      error: "scope 'user' writes into the home folder of whoever runs the build: leave out `target` and `plugin`",
      path: ['scope'],
    })
}

/** Raised for options that fail validation; the message names every bad option. */
export class OacOptionsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OacOptionsError'
  }
}

function optionName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)), '')
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

/** Validates the plugin options, throwing one error that lists every problem by option name. */
export function validateOptions(raw: unknown): OacPluginOptions {
  if (isValid(raw)) return { ...raw, ...(raw.harnesses && { harnesses: [...raw.harnesses] }) }
  // Options the fast check does not take: zod decides, and words the problems. Loaded synchronously,
  // as plugins are created synchronously, and only here.
  const { z } = createRequire(import.meta.url)('zod') as typeof import('zod')
  const parsed = optionsSchema(z).safeParse(raw, { reportInput: true })
  // The schema's fields are OPTION_SPECS', one per option, so its output is the options type.
  if (parsed.success) return parsed.data as unknown as OacPluginOptions
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')} (known: ${Object.keys(OPTION_SPECS).join(', ')})`
    }
    const name = optionName(issue.path)
    if (!name) return `${issue.message}, got ${describe(issue.input)}`
    if (issue.code === 'invalid_type' && issue.input === undefined) return `option \`${name}\` is missing: ${issue.message}`
    const got = issue.code === 'invalid_type' || issue.code === 'invalid_value' ? `, got ${describe(issue.input)}` : ''
    return `option \`${name}\`: ${issue.message}${got}`
  })
  throw new OacOptionsError(`unplugin-oac: invalid options\n${problems.map((p) => `  - ${p}`).join('\n')}`)
}
