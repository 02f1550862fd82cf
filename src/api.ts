import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { ScriptBundler } from './bundle/index.js'
import { compilePlan, type PlanOptions } from './compile/index.js'
import { type PackageMetadataInput, packageMetadata } from './compile/package-metadata.js'
import type { Plan, PluginInfo } from './compile/plan.js'
import { type Diagnostic, hasErrors, OacError, withLevels } from './diagnostics.js'
import { emitAll } from './emit/index.js'
import type { OutputFile } from './emit/types.js'
import { RegistryBundler } from './load/bundle.js'
import { type LoadedRegistry, loadRegistry } from './load/index.js'
import { writeTarget } from './target.js'
import type { WriteMode, WriteReport } from './write/index.js'

export interface GenerateOptions extends Omit<PlanOptions, 'root' | 'plugin'> {
  /** `path/to/registry.ts:exportName` (or `#exportName`; with none named, the default export, else the module's one registry). */
  registry: string
  /** The project root: relative paths resolve from here (default `process.cwd()`). */
  root?: string
  /**
   * Compile into a plugin folder (the target) that each harness installs, rather than into a project.
   * Each field left out comes from the project's package.json (`name` without its scope, `version`,
   * `description`), else the root folder's name, 0.1.0 and a sentence naming the plugin.
   */
  plugin?: Partial<Pick<PluginInfo, 'name' | 'version' | 'description'>> & PackageMetadataInput
}

export interface CompileOptions extends GenerateOptions {
  /**
   * Where the agent tree goes, relative to root (default `.`). With `scope: 'user'`, the home folder it
   * is installed into (default `os.homedir()`): the harnesses find it there when it is their HOME.
   */
  target?: string
  /** `write` (default), `check` (write nothing, report drift), `dry-run` (write nothing, report changes). */
  mode?: WriteMode
  /** Overwrite user files that sit where we would write owned files. */
  force?: boolean
}

export interface Generated {
  plan: Plan
  files: OutputFile[]
  diagnostics: Diagnostic[]
  /** Every local file the definitions came from, tools' imports included (for watch mode). */
  watchFiles: string[]
}

export interface CompileResult extends Generated {
  report: WriteReport
}

export interface CompilerOptions {
  /**
   * Whether `generate` will run again after edits (default true): the registry's evaluated modules
   * are then kept, so a rebuild runs only the modules an edit can change. `compile()` runs once.
   */
  watch?: boolean
}

/**
 * Runs load -> compile -> emit -> bundle. Keeps the bundlers' incremental state between calls,
 * so a watch-mode driver calls `generate` again after a change and pays only for what changed.
 */
export class Compiler {
  readonly root: string
  private readonly bundler: ScriptBundler
  private readonly registryBundler: RegistryBundler
  /** The last plan (and as JSON) and what emitting it gave: emitters are pure, so the same plan gives the same files. */
  private lastEmit: { plan: Plan; json: string; files: OutputFile[] } | undefined
  /** The last compile's inputs and what it gave: compile is pure, so the same inputs give the same plan. */
  private lastCompile: { loaded: LoadedRegistry; options: string; result: ReturnType<typeof compilePlan> } | undefined

  constructor(root: string = process.cwd(), options: CompilerOptions = {}) {
    this.root = resolve(root)
    this.bundler = new ScriptBundler(this.root)
    this.registryBundler = new RegistryBundler({ keepModules: options.watch ?? true })
  }

  /** Throws OacError when any stage reports an error; warnings come back in `diagnostics`. */
  async generate(options: GenerateOptions): Promise<Generated> {
    const loaded = await loadRegistry(options.registry, this.root, this.registryBundler)
    const diagnostics = [...loaded.diagnostics]
    if (hasErrors(diagnostics)) throw new OacError(diagnostics)
    const compiled = this.compile(loaded, options)
    diagnostics.push(...compiled.diagnostics)
    if (!compiled.plan || hasErrors(diagnostics)) throw new OacError(diagnostics)
    const plan = compiled.plan
    // Emitting is this process's work, bundling esbuild's (another process): they run side by side.
    let emitted: OutputFile[] = []
    const bundled = await this.bundler.build(plan, () => {
      emitted = this.emit(plan)
    })
    diagnostics.push(...withLevels(plan.diagnosticLevels, bundled.diagnostics))
    if (hasErrors(diagnostics)) throw new OacError(diagnostics)
    const files = [...emitted, ...bundled.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    // A plugin's name, version and description default to package.json's: a watch build follows its edits.
    const identity = options.plugin && existsSync(join(this.root, 'package.json')) ? [join(this.root, 'package.json')] : []
    const watchFiles = [...new Set([...loaded.files, ...bundled.inputs, ...identity])].sort()
    return { plan, files, diagnostics, watchFiles }
  }

  async dispose(): Promise<void> {
    await Promise.all([this.bundler.dispose(), this.registryBundler.dispose()])
  }

  /**
   * A watch rebuild after an edit inside a tool's `run` keeps the loaded registry (see KeptModules):
   * it gets the very plan of the last build, which every later stage then knows at a glance.
   */
  private compile(loaded: LoadedRegistry, options: GenerateOptions): ReturnType<typeof compilePlan> {
    // The plugin's identity as package.json gives it now: an edit there (a new version) compiles again.
    const { plugin, ...rest } = options
    const planOptions = { ...rest, root: this.root, ...(plugin && { plugin: pluginInfo(this.root, plugin) }) }
    const key = JSON.stringify(planOptions)
    const last = this.lastCompile
    if (last && last.options === key && last.loaded.registry === loaded.registry && last.loaded.zod === loaded.zod && samePrompts(last.loaded.prompts, loaded.prompts) && sameDecisions(last.loaded.hookDecisions, loaded.hookDecisions) && sameDecisions(last.loaded.toolResults, loaded.toolResults)) {
      return last.result
    }
    const result = compilePlan(loaded, planOptions)
    this.lastCompile = { loaded, options: key, result }
    return result
  }

  /** A watch rebuild after an edit inside a tool's code has the same plan: its files come from the last build. */
  private emit(plan: Plan): OutputFile[] {
    if (this.lastEmit?.plan === plan) return this.lastEmit.files
    const json = JSON.stringify(plan)
    if (this.lastEmit?.json !== json) this.lastEmit = { plan, json, files: emitAll(plan) }
    else this.lastEmit.plan = plan
    return this.lastEmit.files
  }
}

/** The plugin's identity: what was given, the rest from the project's package.json (read at each compile, as a build reads it). */
function pluginInfo(root: string, given: NonNullable<GenerateOptions['plugin']>): PluginInfo {
  let project: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    if (typeof parsed === 'object' && parsed !== null) project = parsed as Record<string, unknown>
  } catch {
    // No package.json (or none that parses): the defaults below.
  }
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined)
  const name = given.name ?? text(project.name)?.replace(/^@[^/]+\//, '') ?? basename(root)
  return {
    ...packageMetadata(project),
    ...packageMetadata(given),
    name,
    version: given.version ?? text(project.version) ?? '0.1.0',
    description: given.description ?? text(project.description) ?? `The agents and tools of ${name}, compiled by unplugin-oac.`,
  }
}

function samePrompts(a: LoadedRegistry['prompts'], b: LoadedRegistry['prompts']): boolean {
  return a.size === b.size && [...a].every(([agent, text]) => b.get(agent) === text)
}

/** What the hooks decide and what the tools return are read from their `run` bodies, which an edit that keeps the registry can change. */
function sameDecisions<D>(a: ReadonlyMap<D, readonly string[]>, b: ReadonlyMap<D, readonly string[]>): boolean {
  return a.size === b.size && [...a].every(([definition, kinds]) => b.get(definition)?.join() === kinds.join())
}

/** Generates the agent tree and writes it into the target folder. */
export async function compile(options: CompileOptions): Promise<CompileResult> {
  const compiler = new Compiler(options.root, { watch: false })
  try {
    const generated = await compiler.generate(options)
    const report = await writeTarget(generated.files, generated.plan, {
      target: resolve(compiler.root, options.target ?? (options.scope === 'user' ? homedir() : '.')),
      mode: options.mode ?? 'write',
      force: options.force ?? false,
      owner: generated.plan.serverName,
    })
    if (hasErrors(report.diagnostics)) throw new OacError([...generated.diagnostics, ...report.diagnostics])
    return { ...generated, diagnostics: [...generated.diagnostics, ...report.diagnostics], report }
  } finally {
    await compiler.dispose()
  }
}

export type { Plan } from './compile/plan.js'
export { DEFAULT_SERVER_NAME } from './compile/plan.js'
export type { Diagnostic } from './diagnostics.js'
export { OacError, formatDiagnostic } from './diagnostics.js'
export type { OutputFile } from './emit/types.js'
export type { WriteMode, WriteReport } from './write/index.js'
export { writeTarget } from './target.js'
export { owners, writeOutputs } from './write/index.js'
export type { DoctorFix, DoctorEdit } from './compile/harnesses/types.js'
export type { DoctorOptions, DoctorReport, HarnessCheck, HarnessStatus } from './doctor/index.js'
export { DoctorError, doctor } from './doctor/index.js'
