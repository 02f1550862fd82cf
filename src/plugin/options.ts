import { z } from 'zod'
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
  /** Also put the MCP block in the project's `.codex/config.toml`, for Codex's main agent (default false). */
  codexConfig?: boolean
  /** Overwrite user files that sit where the agent tree puts files it owns. */
  force?: boolean
}

const nonEmpty = (what: string) => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}, got an empty string` })

const optionsSchema = z.strictObject(
  {
    registry: nonEmpty('the registry module and export, e.g. "./agents/registry.ts:registry"'),
    config: nonEmpty('the name of a config profile of the registry').optional(),
    target: nonEmpty('a folder relative to the project root, e.g. "." or "dist"').optional(),
    harnesses: z
      .array(z.enum(HARNESSES as [Harness, ...Harness[]], { error: `expected one of ${HARNESSES.join(', ')}` }), {
        error: `expected an array of harness names (${HARNESSES.join(', ')})`,
      })
      .optional(),
    nativeTools: z.boolean({ error: 'expected true or false' }).optional(),
    root: nonEmpty('a folder, absolute or relative to the current directory').optional(),
    serverName: nonEmpty('a name for the MCP server entry, e.g. "app-a-tools"').optional(),
    bridge: z.enum(['process', 'inline'], { error: 'expected "process" or "inline"' }).optional(),
    codexConfig: z.boolean({ error: 'expected true or false' }).optional(),
    force: z.boolean({ error: 'expected true or false' }).optional(),
  },
  { error: 'expected an options object: oac({ registry: "./agents/registry.ts:registry" })' },
)

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
  const parsed = optionsSchema.safeParse(raw, { reportInput: true })
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')} (known: ${Object.keys(optionsSchema.shape).join(', ')})`
    }
    const name = optionName(issue.path)
    if (!name) return `${issue.message}, got ${describe(issue.input)}`
    if (issue.code === 'invalid_type' && issue.input === undefined) return `option \`${name}\` is missing: ${issue.message}`
    const got = issue.code === 'invalid_type' || issue.code === 'invalid_value' ? `, got ${describe(issue.input)}` : ''
    return `option \`${name}\`: ${issue.message}${got}`
  })
  throw new OacOptionsError(`unplugin-oac: invalid options\n${problems.map((p) => `  - ${p}`).join('\n')}`)
}
