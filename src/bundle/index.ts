import { existsSync, readFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { type BuildContext, type BuildFailure, type BuildResult, type Message, context as createContext, type Plugin } from 'esbuild'
import { type Plan, scriptsFolder } from '../compile/plan.js'
import type { Diagnostic } from '../diagnostics.js'
import type { OwnedFile } from '../emit/types.js'
import { jsString } from '../emit/codegen/escape.js'
import { FileVersion } from '../file-stamps.js'
import { ownModule, packageRoot } from '../package-paths.js'
import { EntryFiles } from './entry-files.js'
import { InputStamps } from './input-stamps.js'
import { type EntryContext, MCP_SERVER_ENTRY, mcpServerEntrySource, needsMcpServer, toolEntrySource, toolModulePath } from './entries.js'

export interface BundleResult {
  /** `<scripts>/<tool>.mjs`, `<scripts>/mcp_tools_server.cjs` when needed, and shared `<scripts>/chunks/*` (see scriptsFolder). */
  files: OwnedFile[]
  /** Absolute paths of the local (non-node_modules) files the scripts were built from, for watch mode. */
  inputs: string[]
  diagnostics: Diagnostic[]
}

/** The SDK's server module, and the namespace of the module served in place of its ajv validator. */
const SDK_SERVER_MODULE = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/
const VALIDATOR_NAMESPACE = 'oac-sdk-validator'

/** Gives bundled CommonJS dependencies a `require` for node built-ins (ESM output has none). The
 * import is renamed so it cannot clash with a bundled module's own `createRequire` import; esbuild
 * already renames bundled top-level `require` bindings, which it treats as reserved. */
const REQUIRE_BANNER = "import { createRequire as __oacCreateRequire } from 'node:module'; const require = __oacCreateRequire(import.meta.url);"

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown }
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0'
}

type ScriptsBuild = BuildResult<{ write: false; metafile: true }>

interface CachedContext {
  /** The entry names the context was created with; a different set needs a new context. */
  key: string
  context: BuildContext<{ write: false; metafile: true }>
  /** The context's last successful build, and the stamps of the files it read. */
  last?: { result: ScriptsBuild; inputs: InputStamps }
}

/**
 * The tool scripts are one esbuild build (shared code split into chunks); the MCP server is a second
 * one, so its start parses only what it needs (the SDK and the parts of zod the SDK uses) rather
 * than the chunks tool code pulls in. It loads tool code from the sibling scripts, so nothing of a
 * tool is copied into it.
 */
type BuildGroup = 'tools' | 'server'

/**
 * Builds the standalone tool scripts and the MCP server. The esbuild contexts are kept between
 * builds so a watch rebuild only re-reads what changed; one is recreated when its set of entries changes.
 */
export class ScriptBundler {
  readonly root: string
  /** Where esbuild pretends to write; nothing is written, output paths are made relative to it. */
  private readonly outdir: string
  /** The generated entries, as files for esbuild to read itself: a plugin serving them would cost a
   * round trip per entry on every rebuild, and keep esbuild waiting while this process emits. */
  private readonly entries: EntryFiles
  private readonly cached = new Map<BuildGroup, CachedContext>()
  private queue: Promise<unknown> = Promise.resolve()
  private version: string | undefined
  /** The local inputs of the last successful build, still worth watching when a build fails. */
  private lastInputs: string[] = []

  constructor(root: string) {
    this.root = resolve(root)
    this.outdir = join(this.root, '.oac-bundle', 'scripts')
    this.entries = new EntryFiles()
  }

  /**
   * Builds run one at a time: they share the esbuild contexts and the entry files. `whileBundling`
   * is called exactly once, as soon as esbuild has the work (or when there is none), so the caller's
   * own work runs alongside esbuild's rather than after it.
   */
  build(plan: Plan, whileBundling: () => void = () => undefined): Promise<BundleResult> {
    const run = this.queue.then(async () => {
      let called = false
      const alongside = () => {
        if (called) return
        called = true
        whileBundling()
      }
      try {
        return await this.buildNow(plan, alongside)
      } finally {
        alongside()
      }
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  async dispose(): Promise<void> {
    await this.queue
    const contexts = [...this.cached.values()]
    this.cached.clear()
    await Promise.all(contexts.map((cached) => cached.context.dispose()))
    await this.entries.dispose()
  }

  private async buildNow(plan: Plan, whileBundling: () => void): Promise<BundleResult> {
    const diagnostics = this.checkPlan(plan)
    if (diagnostics.length > 0) return { files: [], inputs: this.inputsAfterFailure(plan, []), diagnostics }

    this.version ??= packageVersion()
    const entryContext: EntryContext = { root: this.root, ownModule, version: this.version }
    const sources = new Map(plan.tools.map((tool) => [tool.name, toolEntrySource(plan, tool, entryContext)]))
    if (needsMcpServer(plan)) sources.set(MCP_SERVER_ENTRY, mcpServerEntrySource(plan, entryContext))
    if (sources.size === 0) return { files: [], inputs: [], diagnostics: [] }
    const changedEntries = this.entries.write(sources)

    const groups = new Map<BuildGroup, string[]>()
    if (plan.tools.length > 0) groups.set('tools', plan.tools.map((tool) => tool.name).sort())
    if (sources.has(MCP_SERVER_ENTRY)) groups.set('server', [MCP_SERVER_ENTRY])
    for (const [group, cached] of this.cached) {
      if (groups.has(group)) continue
      this.cached.delete(group)
      await cached.context.dispose()
    }
    const contexts = await Promise.all([...groups].map(async ([group, names]) => ({ names, cached: await this.contextFor(group, names) })))
    const building = contexts.map(({ names, cached }) => this.rebuildIfChanged(cached, names, changedEntries))
    whileBundling()
    const settled = await Promise.allSettled(building)
    const results = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
    const failures = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Partial<BuildFailure>] : []))
    const unexpected = failures.find((failure) => !Array.isArray(failure.errors))
    if (unexpected) throw unexpected
    if (failures.length > 0) {
      const errors = failures.flatMap((failure) => failure.errors ?? [])
      const warnings = [...failures, ...results].flatMap((outcome) => outcome.warnings ?? [])
      return {
        files: [],
        inputs: this.inputsAfterFailure(plan, errors),
        diagnostics: [...errors.map((m) => this.diagnostic(m, 'error')), ...warnings.map((m) => this.diagnostic(m, 'warning'))],
      }
    }
    const folder = scriptsFolder(plan.serverName)
    const files: OwnedFile[] = results
      .flatMap((result) => result.outputFiles)
      .map((file): OwnedFile => ({ kind: 'owned', path: `${folder}/${relative(this.outdir, file.path).split(sep).join('/')}`, content: file.text }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    this.lastInputs = [...new Set(this.localInputs(results.flatMap((result) => Object.keys(result.metafile.inputs))))]
    return { files, inputs: this.lastInputs, diagnostics: results.flatMap((result) => result.warnings.map((m) => this.diagnostic(m, 'warning'))) }
  }

  /**
   * The context's last result when none of its entries and none of the files it read has changed
   * since (editing a tool leaves the MCP server as it was; editing an agent leaves every script),
   * else a rebuild: esbuild re-links and re-prints every output on a rebuild, however small the change.
   */
  private async rebuildIfChanged(cached: CachedContext, entryNames: readonly string[], changedEntries: ReadonlySet<string>): Promise<ScriptsBuild> {
    const last = cached.last
    if (last && !entryNames.some((name) => changedEntries.has(name)) && last.inputs.unchanged()) return last.result
    cached.last = undefined
    const startedAt = Date.now()
    const hashedBefore = FileVersion.hashRecent(last?.inputs.files() ?? [], startedAt)
    const result = await cached.context.rebuild()
    const read = Object.keys(result.metafile.inputs)
      .filter((input) => !input.startsWith(`${VALIDATOR_NAMESPACE}:`))
      .map((input) => resolve(this.root, input))
      .filter((input) => !this.entries.holds(input))
    cached.last = { result, inputs: InputStamps.take(read, startedAt, hashedBefore) }
    return result
  }

  /**
   * A failed build has no metafile, yet watch mode must keep watching, above all the file that
   * broke: the last good build's inputs, the tools' modules, and every file an error points at.
   */
  private inputsAfterFailure(plan: Plan, errors: readonly Message[]): string[] {
    const named = errors.flatMap((error) => (error.location ? [error.location.file] : []))
    const modules = plan.tools.map((tool) => toolModulePath(this.root, tool)).filter((path) => existsSync(path))
    return [...new Set([...this.lastInputs, ...modules, ...this.localInputs(named)])].sort()
  }

  /** Problems esbuild would report less clearly: a tool module that is gone, a name taken by the server entry. */
  private checkPlan(plan: Plan): Diagnostic[] {
    const diagnostics: Diagnostic[] = []
    for (const tool of plan.tools) {
      const where = { file: tool.source.file, line: tool.source.line, column: tool.source.column }
      if (tool.name === MCP_SERVER_ENTRY) {
        diagnostics.push({
          severity: 'error',
          code: 'tool-name-reserved',
          message: `The tool name "${MCP_SERVER_ENTRY}" is reserved: ${tool.script} would be the generated MCP server.`,
          fix: 'Rename the tool.',
          ...where,
        })
      }
      if (!existsSync(toolModulePath(this.root, tool))) {
        diagnostics.push({
          severity: 'error',
          code: 'tool-module-missing',
          message: `The module of the tool "${tool.name}" (${tool.source.file}) does not exist, so ${tool.script} cannot be built.`,
          fix: 'Restore the file, or compile again so the plan points at the module that now defines the tool.',
          ...where,
        })
      }
    }
    return diagnostics
  }

  private async contextFor(group: BuildGroup, entryNames: string[]): Promise<CachedContext> {
    const key = entryNames.join('\n')
    const previous = this.cached.get(group)
    if (previous?.key === key) return previous
    this.cached.delete(group)
    await previous?.context.dispose()
    const context = await createContext({
      entryPoints: Object.fromEntries(entryNames.map((name) => [name, this.entries.path(name)])),
      absWorkingDir: this.root,
      outdir: this.outdir,
      write: false,
      metafile: true,
      bundle: true,
      platform: 'node',
      target: 'node20',
      // Whitespace minification also drops esbuild's `// path` comments, which would put
      // checkout-specific paths into the output; identifiers stay readable for stack traces.
      minifyWhitespace: true,
      minifySyntax: true,
      logLevel: 'silent',
      // Tool code imports the definition API from `unplugin-oac`: ours, whether or not the project installed it.
      alias: { 'unplugin-oac': ownModule('index') },
      ...(group === 'server'
        ? // One CommonJS file, which the launcher `require`s (see mcpServerScript): everything it
          // holds runs at startup, so there is nothing to split off.
          { format: 'cjs', outExtension: { '.js': '.cjs' }, plugins: [this.serverPlugin()] }
        : { format: 'esm', splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' }, banner: { js: REQUIRE_BANNER } }),
    })
    const cached: CachedContext = { key, context }
    this.cached.set(group, cached)
    return cached
  }

  /** The server entry's imports of sibling tool scripts stay as they are, and the SDK gets our validator. */
  private serverPlugin(): Plugin {
    const root = this.root
    const serverEntry = this.entries.path(MCP_SERVER_ENTRY)
    return {
      name: 'oac-server',
      setup(build) {
        // The server imports each tool from its sibling script at run time: those files sit next to it.
        build.onResolve({ filter: /^\.\/[^/]+\.mjs$/ }, (args) => (args.importer === serverEntry ? { path: args.path, external: true } : undefined))
        // The SDK's server imports its ajv validator as the default; ours passes NoElicitationValidator
        // instead, so that module (and ajv, the bulk of the server's code) is swapped for ours.
        build.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
          SDK_SERVER_MODULE.test(args.importer) ? { path: args.path, namespace: VALIDATOR_NAMESPACE } : undefined,
        )
        build.onLoad({ filter: /.*/, namespace: VALIDATOR_NAMESPACE }, () => ({
          contents: `export { NoElicitationValidator as AjvJsonSchemaValidator } from ${jsString(ownModule('runtime/mcp-server'))}`,
          loader: 'js',
          resolveDir: root,
        }))
      },
    }
  }

  /** Absolute paths of the local files among esbuild's input paths (relative to the root, or namespaced). */
  private localInputs(inputs: readonly string[]): string[] {
    return inputs
      .filter((input) => !input.startsWith(`${VALIDATOR_NAMESPACE}:`) && !/(^|[\\/])node_modules[\\/]/.test(input))
      .map((input) => resolve(this.root, input))
      .filter((input) => !this.entries.holds(input))
      .sort()
  }

  private diagnostic(message: Message, severity: Diagnostic['severity']): Diagnostic {
    const location = message.location
    const inEntry = location !== null && this.entries.holds(resolve(this.root, location.file))
    return {
      severity,
      code: severity === 'error' ? 'bundle-error' : 'bundle-warning',
      message: `${message.text}${message.notes.map((note) => ` (${note.text})`).join('')}`,
      ...(location &&
        !inEntry && {
          file: location.file,
          line: location.line,
          column: location.column + 1,
        }),
    }
  }
}
