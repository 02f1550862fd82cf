import { existsSync, readFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { type BuildFailure, build as esbuild, type Message, type Plugin } from 'esbuild'
import type { Plan } from '../compile/plan.js'
import { MCP_BRIDGE_ENTRY, MCP_BRIDGE_FILE, MCP_SERVER_ENTRY } from '../compile/script-names.js'
import { targetOf } from '../compile/target.js'
import { debugBundle } from '../debug.js'
import type { Diagnostic } from '../diagnostics.js'
import type { OwnedFile } from '../emit/types.js'
import { FileVersion } from '../file-stamps.js'
import { sourceLoader } from '../source-loader.js'
import { InputStamps } from './input-stamps.js'
import { ToolModule } from './tool-module.js'
import {
  type CodeUnit,
  codeUnits,
  type EntryContext,
  HOOK_FOLDER,
  hookLauncherSource,
  mcpBridgeSource,
  mcpServerSource,
  needsMcpBridge,
  needsMcpServer,
  toolDefinitionEntry,
  toolLauncherSource,
  TOOL_CODE_FOLDER,
  toolModulePath,
} from './entries.js'
import { inNamespace, REQUIRE_BANNER, type ScriptFile, Vendor, type VendorModule } from './vendor.js'

export interface BundleResult {
  /**
   * Per tool `<scripts>/<tool>.mjs` (its launcher) and `<scripts>/tools/<tool>.mjs` (+ `.map`, its
   * code); `<scripts>/mcp_tools_server.cjs` when needed; the vendor files `<scripts>/vendor/**`
   * (see Target.scriptsFolder, vendor.ts).
   */
  files: OwnedFile[]
  /** Absolute paths of the local (non-node_modules) files the scripts were built from, for watch mode. */
  inputs: string[]
  diagnostics: Diagnostic[]
}


/**
 * What esbuild builds a tool's code file from: the tool's module itself (`in`, its absolute path),
 * or, for a module that defines other tools too, `source`, a re-export of the tool's definition
 * alone, loaded from memory (`in` in ENTRY_NAMESPACE).
 */
interface CodeEntry {
  in: string
  source?: string
}

const sameEntry = (a: CodeEntry, b: CodeEntry) => a.in === b.in && a.source === b.source

/** The last build of one tool's code: reused while its entry and every file it read are as they were. */
interface ToolBuild {
  entry: CodeEntry
  files: ScriptFile[]
  needs: VendorModule[]
  inputs: InputStamps
  /** The local files it read, absolute. */
  localInputs: string[]
  warnings: Message[]
}

type BuildFailed = { ok: false; errors: Message[]; warnings: Message[] }

/** A code file to build (a tool's or a hook's), and what from. */
type WantedTool = { unit: CodeUnit; entry: CodeEntry }

/** A build of some code files; `crossed`: those whose code imports a module another definition of the build owned. */
type BatchOutcome = { ok: true; crossed: WantedTool[] } | BuildFailed

type ToolsOutcome = { ok: true; builds: ToolBuild[] } | BuildFailed

/** The namespace of the generated entries, which esbuild loads from memory: such an entry of `tools/<tool>.mjs` is `oac-entry:tools/<tool>.mjs`. */
const ENTRY_NAMESPACE = 'oac-entry'

/**
 * Hands esbuild each parsed tool module with the definitions of every tool but the one this build
 * makes a script for (`owners`, by module) marked pure. A module whose tool is not in this build
 * only lends code to a script: all its definitions are marked.
 */
function otherToolsPlugin(modules: ReadonlyMap<string, ToolModule>, owners: ReadonlyMap<string, CodeUnit>): Plugin {
  return {
    name: 'oac-other-tools',
    setup(build) {
      if (modules.size === 0) return
      // Literal paths: esbuild calls back only for these modules.
      const filter = new RegExp(`^(?:${[...modules.keys()].map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`)
      build.onLoad({ filter }, (args) => {
        const module = modules.get(args.path)
        if (!module) return undefined
        const owner = owners.get(args.path)
        const own = owner ? module.definitionAt(owner.source)?.call : undefined
        return { contents: module.withoutOtherTools(own) ?? module.text, loader: sourceLoader(args.path) }
      })
    },
  }
}

function entryPlugin(entries: ReadonlyMap<string, string>, root: string): Plugin {
  return {
    name: 'oac-entries',
    setup(build) {
      const prefix = `${ENTRY_NAMESPACE}:`
      build.onResolve({ filter: /^oac-entry:/ }, (args) => (args.kind === 'entry-point' ? { path: args.path.slice(prefix.length), namespace: ENTRY_NAMESPACE } : undefined))
      build.onLoad({ filter: /.*/, namespace: ENTRY_NAMESPACE }, (args) => ({ contents: entries.get(args.path), loader: 'js', resolveDir: root }))
    },
  }
}

/** The namespace of unplugin-oac's public module in a hook's code build: its code file holds what the hook calls of it (see Vendor.ownIndex). */
const OWN_INLINE_NAMESPACE = 'oac-inline'

function ownInlinePlugin(vendor: Vendor): Plugin {
  return {
    name: 'oac-own-inline',
    setup(build) {
      build.onResolve({ filter: /^unplugin-oac$/ }, (args) => ({ path: args.path, namespace: OWN_INLINE_NAMESPACE }))
      build.onLoad({ filter: /.*/, namespace: OWN_INLINE_NAMESPACE }, async () => ({ contents: await vendor.ownIndex(), loader: 'js' }))
    },
  }
}

/** `items` grouped by `keyOf`, groups and items in the order met (Map.groupBy, which Node 20 lacks). */
function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return groups
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/**
 * Builds the tool scripts and the MCP server. Each tool's code is its own esbuild build of its own
 * module graph, with packages and our runtime left to the shared vendor files: an edit rebuilds
 * one small script, and adding a tool changes no other file. A build is kept and reused while its
 * entry and the files it read are unchanged; the vendor files are built once per package version.
 */
export class ScriptBundler {
  readonly root: string
  private readonly vendor = new Vendor()
  /** The last build of each code file, by its unit's key. */
  private readonly tools = new Map<string, ToolBuild>()
  /** Each tool module as last read (and parsed, if it was), so that a rebuild reads only what changed. */
  private readonly seenModules = new Map<string, { version: FileVersion | undefined; text: string; parsed: boolean; module: ToolModule | undefined }>()
  private queue: Promise<unknown> = Promise.resolve()
  /** The local inputs of the last successful build, still worth watching when a build fails. */
  private lastInputs: string[] = []
  /** The files made from the plan (the launchers and the server's list) for the last plan built. */
  private planFiles: { plan: Plan; hookRuntime: string; files: ScriptFile[] } | undefined

  constructor(root: string) {
    this.root = resolve(root)
  }

  /**
   * Builds run one at a time: they share the kept builds. `whileBundling` is called exactly once, as
   * soon as esbuild has the work (or when there is none), so the caller's own work runs alongside
   * esbuild's rather than after it.
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
    this.tools.clear()
    this.seenModules.clear()
  }

  private async buildNow(plan: Plan, whileBundling: () => void): Promise<BundleResult> {
    const diagnostics = this.checkPlan(plan)
    if (diagnostics.length > 0) return { files: [], inputs: this.inputsAfterFailure(plan, []), diagnostics }
    const context: EntryContext = { root: this.root, runtime: this.vendor.runtimeFiles(), version: this.vendor.own().version }
    const folder = targetOf(plan).scriptsFolder
    const owned = (files: readonly ScriptFile[]) => files.map((file): OwnedFile => ({ kind: 'owned', path: `${folder}/${file.path}`, content: file.text })).sort(byPath)
    if (plan.tools.length === 0 && plan.hooks.length === 0) {
      this.tools.clear()
      // Servers someone else wrote, and no code of the registry's: the bridge alone.
      const bridge = needsMcpBridge(plan) ? [{ path: MCP_BRIDGE_FILE, text: mcpBridgeSource(plan, context) }, ...(await this.vendor.buildBridge())] : []
      return { files: owned(bridge), inputs: [], diagnostics: [] }
    }
    // The maps name the tools' modules as seen from a tree at the project root (the default target),
    // so that the tree's bytes do not depend on where it is written; elsewhere, a stack still names
    // the right file and line, under the target folder.
    const scriptsDir = join(this.root, ...folder.split('/'))
    const planned = new Set(codeUnits(plan).map((unit) => unit.key))
    for (const key of this.tools.keys()) if (!planned.has(key)) this.tools.delete(key)

    const vendorOptions = { withServer: needsMcpServer(plan), withBridge: needsMcpBridge(plan), schemaPackages: new Set(plan.tools.map((tool) => tool.schemaPackage)), withHooks: plan.hooks.length > 0 }
    const building = this.buildTools(plan, context, scriptsDir)
    // Our runtime's vendor files and the server's take nothing from the tools' builds: they are built
    // alongside them (and kept), and only the packages the tools import wait for those builds.
    const runtime = this.vendor.buildRuntime(vendorOptions)
    whileBundling()
    const [outcome] = await Promise.all([building, runtime])
    if (!outcome.ok) {
      return {
        files: [],
        inputs: this.inputsAfterFailure(plan, outcome.errors),
        diagnostics: [...outcome.errors.map((m) => this.diagnostic(m, 'error')), ...outcome.warnings.map((m) => this.diagnostic(m, 'warning'))],
      }
    }
    const builds = outcome.builds
    const vendorFiles = await this.vendor.build(
      builds.flatMap((build) => build.needs),
      vendorOptions,
    )
    const hookRuntime = plan.hooks.length > 0 ? await this.vendor.hookRuntime() : ''
    const scriptFiles: ScriptFile[] = [...this.filesOfPlan(plan, context, hookRuntime), ...builds.flatMap((build) => build.files), ...vendorFiles]
    const files = owned(scriptFiles)
    this.lastInputs = [...new Set(builds.flatMap((build) => build.localInputs))].sort()
    return { files, inputs: this.lastInputs, diagnostics: builds.flatMap((build) => build.warnings.map((m) => this.diagnostic(m, 'warning'))) }
  }

  /**
   * Each tool's and hook's launcher (a hook's carrying `hookRuntime`), and the MCP server when needed:
   * made again only for another plan (a watch rebuild after an edit inside a `run` has the same one).
   */
  private filesOfPlan(plan: Plan, context: EntryContext, hookRuntime: string): ScriptFile[] {
    if (this.planFiles?.plan !== plan || this.planFiles.hookRuntime !== hookRuntime) {
      const files = plan.tools.map((tool) => ({ path: `${tool.name}.mjs`, text: toolLauncherSource(plan, tool, context) }))
      for (const hook of plan.hooks) files.push({ path: `${HOOK_FOLDER}/${hook.name}.mjs`, text: hookLauncherSource(plan, hook, context, hookRuntime) })
      if (needsMcpServer(plan)) files.push({ path: `${MCP_SERVER_ENTRY}.cjs`, text: mcpServerSource(plan, context) })
      if (needsMcpBridge(plan)) files.push({ path: MCP_BRIDGE_FILE, text: mcpBridgeSource(plan, context) })
      this.planFiles = { plan, hookRuntime, files }
    }
    return this.planFiles.files
  }

  /**
   * Every tool's code: the last build of a tool while nothing it was built from changed, and esbuild
   * builds for all the others (an edit gives one small build; a cold compile, one build of every tool
   * whose module defines no other tool of the plan: each output holds its own entry's graph alone, so
   * its bytes are those of a build of that tool by itself).
   */
  private async buildTools(plan: Plan, context: EntryContext, scriptsDir: string): Promise<ToolsOutcome> {
    // Taken before the tool modules are read: a module edited after it counts as changed (InputStamps).
    const startedAt = Date.now()
    // The files of the last builds still as they were: a tool module among them need not be read again.
    const unchanged = new Set([...this.tools].filter(([, last]) => last.inputs.unchanged()).map(([key]) => key))
    const units = codeUnits(plan)
    // Each module's tools and hooks of the plan, in plan order.
    const definedIn = groupBy(units, (unit) => unit.source.file)
    // A hook's module is read, and so are those of the tools it watches: its script leaves their definitions out (tool-module.ts).
    const watched = plan.hooks.flatMap((hook) => [hook, ...plan.tools.filter((tool) => hook.tools?.ours.includes(tool.name))])
    const parse = new Set(watched.map((definition) => toolModulePath(this.root, definition)))
    const modules = this.toolModules(definedIn, startedAt, new Set(units.filter((unit) => unchanged.has(unit.key)).map((unit) => toolModulePath(this.root, unit))), parse)
    const wanted = units.map((unit): WantedTool => {
      const module = toolModulePath(this.root, unit)
      const definition = modules.get(module)?.definitionAt(unit.source)?.export
      const entry = definition ? { in: `${ENTRY_NAMESPACE}:${unit.codeFile}`, source: toolDefinitionEntry(unit, context, definition) } : { in: module }
      return { unit, entry }
    })
    const stale = wanted.filter(({ unit, entry }) => !(unchanged.has(unit.key) && sameEntry(this.tools.get(unit.key)!.entry, entry)))
    if (stale.length > 0) {
      const built = await this.buildBatches(definedIn, stale, modules, scriptsDir, undefined, startedAt)
      if (!built.ok) return built
      // A CommonJS package bundled into a script may `require` node built-ins: that script gets a `require`.
      const needRequire = stale.filter(({ unit }) => this.tools.get(unit.key)!.files[0]!.text.includes('__require('))
      if (needRequire.length > 0) {
        const again = await this.buildBatches(definedIn, needRequire, modules, scriptsDir, REQUIRE_BANNER, startedAt)
        if (!again.ok) return again
      }
    }
    return { ok: true, builds: units.map((unit) => this.tools.get(unit.key)!) }
  }

  /**
   * Builds `stale` tools' code. A module that defines several of the plan's tools is handed to
   * esbuild once per tool, each time with the other definitions marked pure (see tool-module.ts):
   * esbuild loads a module once per build, so the k-th tool of every such module goes into build k,
   * and the tools of the other modules into one more. A tool whose code imports a module another
   * tool of its build owns is built again alone, so that no script depends on which tools were
   * built together.
   */
  private async buildBatches(
    definedIn: ReadonlyMap<string, readonly CodeUnit[]>,
    stale: readonly WantedTool[],
    modules: ReadonlyMap<string, ToolModule>,
    scriptsDir: string,
    banner: string | undefined,
    startedAt: number,
  ): Promise<{ ok: true } | BuildFailed> {
    const hashedBefore = FileVersion.hashRecent(
      stale.flatMap(({ unit }) => this.tools.get(unit.key)?.inputs.files() ?? []),
      startedAt,
    )
    for (const { unit } of stale) this.tools.delete(unit.key)
    // Hooks build apart from tools: their code takes unplugin-oac's functions into itself, where a tool's imports its vendor file.
    const batches = groupBy(stale, ({ unit }) => {
      const siblings = definedIn.get(unit.source.file)!
      return `${unit.kind}:${siblings.length > 1 ? 1 + siblings.indexOf(unit) : 0}`
    })
    const build = (batch: readonly WantedTool[]) => this.buildBatch(batch, modules, scriptsDir, banner, startedAt, hashedBefore)
    const outcomes = await Promise.all([...batches.values()].map(build))
    const crossed = outcomes.flatMap((outcome) => (outcome.ok ? outcome.crossed : []))
    outcomes.push(...(await Promise.all(crossed.map((unit) => build([unit])))))
    const failed = outcomes.filter((outcome): outcome is BuildFailed => !outcome.ok)
    if (failed.length === 0) return { ok: true }
    // A module several builds share reports its error in each: once is enough.
    const once = (messages: Message[]) => [...new Map(messages.map((m) => [JSON.stringify([m.text, m.location]), m])).values()]
    return { ok: false, errors: once(failed.flatMap((f) => f.errors)), warnings: once(failed.flatMap((f) => f.warnings)) }
  }

  /**
   * The plan's tool modules that may define more than one tool, parsed (see tool-module.ts), by
   * absolute path. Parsing every tool module would cost a cold compile of 1,000 tools a few hundred
   * milliseconds, so a module is parsed only when the plan has several tools from it, or when its
   * text names `defineTool` more than an import and one call do. (A module that imports it under
   * another name and defines tools the plan leaves out keeps them in its tool's script.) `unchanged`:
   * modules a last build read that are still as it read them; `parse`: modules parsed in any case.
   */
  private toolModules(definedIn: ReadonlyMap<string, readonly CodeUnit[]>, startedAt: number, unchanged: ReadonlySet<string>, parse: ReadonlySet<string>): Map<string, ToolModule> {
    const modules = new Map<string, ToolModule>()
    const planned = new Set([...definedIn.values()].map((units) => toolModulePath(this.root, units[0]!)))
    for (const path of this.seenModules.keys()) if (!planned.has(path)) this.seenModules.delete(path)
    for (const [file, units] of definedIn) {
      const path = toolModulePath(this.root, units[0]!)
      let seen = this.seenModules.get(path)
      if (!seen || !(unchanged.has(path) || seen.version?.holds(path))) {
        let text: string
        try {
          text = readFileSync(path, 'utf8')
        } catch {
          this.seenModules.delete(path)
          continue
        }
        seen = { version: FileVersion.ofRead(path, startedAt, text), text, parsed: false, module: undefined }
        this.seenModules.set(path, seen)
      }
      if (!parse.has(path) && units.length < 2 && (seen.text.match(/define(?:Tool|Hook)/g)?.length ?? 0) <= 2) continue
      if (!seen.parsed) seen = { ...seen, parsed: true, module: ToolModule.read(file, seen.text) }
      this.seenModules.set(path, seen)
      if (seen.module) modules.set(path, seen.module)
    }
    return modules
  }

  private async buildBatch(
    batch: readonly WantedTool[],
    modules: ReadonlyMap<string, ToolModule>,
    scriptsDir: string,
    banner: string | undefined,
    startedAt: number,
    hashedBefore: ReadonlyMap<string, string>,
  ): Promise<BatchOutcome> {
    const owners = new Map(batch.map(({ unit }) => [toolModulePath(this.root, unit), unit]))
    const wanted = batch.map(({ unit, entry }) => ({ unit, entry, codeFile: unit.codeFile }))
    const entries = new Map(wanted.flatMap(({ codeFile, entry }) => (entry.source === undefined ? [] : [[codeFile, entry.source]])))
    const needs = new Map<string, VendorModule>()
    // An import a parsed module makes only for its bindings goes when tree shaking leaves them unused,
    // as TypeScript itself drops an import whose bindings are unused: TypeBox goes with the
    // TypeBox tool left out of a zod tool's script, even though TypeBox declares no `sideEffects`.
    const forBindingsOnly = (importer: string, specifier: string) => modules.get(importer)?.importsForBindingsOnly.has(specifier) === true
    debugBundle('tool scripts: %s%s', wanted.length <= 3 ? wanted.map(({ unit }) => unit.name).join(', ') : `${wanted.length} tools`, banner === undefined ? '' : ' (again, with a require)')
    let result
    try {
      result = await esbuild({
        entryPoints: wanted.map(({ codeFile, entry }) => ({ in: entry.in, out: codeFile.replace(/\.mjs$/, '') })),
        absWorkingDir: this.root,
        outdir: scriptsDir,
        outExtension: { '.js': '.mjs' },
        write: false,
        metafile: true,
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        // Readable, for the review of a tool's edit; the map takes a stack back to the tool's source (OAC_DEBUG).
        sourcemap: 'linked',
        sourcesContent: false,
        logLevel: 'silent',
        ...(banner !== undefined && { banner: { js: banner } }),
        plugins: [
          entryPlugin(entries, this.root),
          otherToolsPlugin(modules, owners),
          // A hook's start loads its script and its code file alone: no vendor file of ours (see hookLauncherSource).
          ...(batch[0]!.unit.kind === 'hook' ? [ownInlinePlugin(this.vendor)] : []),
          this.vendor.plugin(`${TOOL_CODE_FOLDER}/entry.mjs`, needs, forBindingsOnly),
        ],
      })
    } catch (error) {
      const failure = error as Partial<BuildFailure>
      if (!Array.isArray(failure.errors)) throw error
      return { ok: false, errors: failure.errors, warnings: failure.warnings ?? [] }
    }
    const outputs = new Map(result.outputFiles.map((file) => [relative(scriptsDir, file.path).split(sep).join('/'), file.text]))
    const crossed: WantedTool[] = []
    for (const [index, { unit, entry, codeFile }] of wanted.entries()) {
      const meta = result.metafile.outputs[relative(this.root, join(scriptsDir, ...codeFile.split('/'))).split(sep).join('/')]
      if (!meta) throw new Error(`esbuild gave no output for ${codeFile}`)
      const read = Object.keys(meta.inputs)
        .filter((input) => !inNamespace(input))
        .map((input) => resolve(this.root, input))
      const readSet = new Set(read)
      if (read.some((input) => modules.has(input) && owners.has(input) && owners.get(input) !== unit)) crossed.push({ unit, entry })
      this.tools.set(unit.key, {
        entry,
        files: [codeFile, `${codeFile}.map`].map((path) => ({ path, text: outputs.get(path) ?? '' })),
        needs: meta.imports.flatMap((imported) => (imported.external && needs.has(imported.path) ? [needs.get(imported.path)!] : [])),
        inputs: InputStamps.take(read, startedAt, hashedBefore),
        localInputs: read.filter((input) => !/[\\/]node_modules[\\/]/.test(input)),
        // A warning goes with the tool whose files it names (one without a file, with the first).
        warnings: result.warnings.filter((warning) =>
          warning.location ? readSet.has(resolve(this.root, warning.location.file)) : index === 0,
        ),
      })
    }
    return { ok: true, crossed }
  }

  /**
   * A failed build has no metafile, yet watch mode must keep watching, above all the file that
   * broke: the last good build's inputs, the tools' modules, and every file an error points at.
   */
  private inputsAfterFailure(plan: Plan, errors: readonly Message[]): string[] {
    const named = errors.flatMap((error) => (error.location && !error.location.file.startsWith(`${ENTRY_NAMESPACE}:`) ? [resolve(this.root, error.location.file)] : []))
    const modules = codeUnits(plan)
      .map((unit) => toolModulePath(this.root, unit))
      .filter((path) => existsSync(path))
    return [...new Set([...this.lastInputs, ...modules, ...named.filter((path) => !/[\\/]node_modules[\\/]/.test(path))])].sort()
  }

  /** Problems esbuild would report less clearly: a tool's or hook's module that is gone, a name taken by the server entry. */
  private checkPlan(plan: Plan): Diagnostic[] {
    const diagnostics: Diagnostic[] = []
    const definitions = [...plan.tools.map((tool) => ['tool', tool] as const), ...plan.hooks.map((hook) => ['hook', hook] as const)]
    for (const [kind, definition] of definitions) {
      const where = { file: definition.source.file, line: definition.source.line, column: definition.source.column }
      const entry = ({ [MCP_SERVER_ENTRY]: 'the generated MCP server', [MCP_BRIDGE_ENTRY]: 'the generated MCP bridge' } as Record<string, string>)[definition.name]
      if (kind === 'tool' && entry !== undefined) {
        diagnostics.push({
          severity: 'error',
          code: 'tool-name-reserved',
          message: `The tool name "${definition.name}" is reserved: ${definition.script} would be ${entry}.`,
          fix: 'Rename the tool.',
          ...where,
        })
      }
      if (!existsSync(toolModulePath(this.root, definition))) {
        diagnostics.push({
          severity: 'error',
          code: 'tool-module-missing',
          message: `The module of the ${kind} "${definition.name}" (${definition.source.file}) does not exist, so ${definition.script} cannot be built.`,
          fix: `Restore the file, or compile again so the plan points at the module that now defines the ${kind}.`,
          ...where,
        })
      }
    }
    return diagnostics
  }

  private diagnostic(message: Message, severity: Diagnostic['severity']): Diagnostic {
    const location = message.location
    const inEntry = location !== null && location.file.startsWith(`${ENTRY_NAMESPACE}:`)
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
