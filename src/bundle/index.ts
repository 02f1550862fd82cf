import { existsSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { type BuildFailure, build as esbuild, type Message } from 'esbuild'
import { type Plan, type PlannedTool, scriptsFolder } from '../compile/plan.js'
import type { Diagnostic } from '../diagnostics.js'
import type { OwnedFile } from '../emit/types.js'
import { FileVersion } from '../file-stamps.js'
import { InputStamps } from './input-stamps.js'
import {
  type EntryContext,
  MCP_SERVER_ENTRY,
  mcpServerSource,
  needsMcpServer,
  toolCodeFile,
  toolCodeSource,
  toolLauncherSource,
  toolModulePath,
} from './entries.js'
import { REQUIRE_BANNER, type ScriptFile, Vendor, type VendorModule } from './vendor.js'

export interface BundleResult {
  /**
   * Per tool `<scripts>/<tool>.mjs` (its launcher) and `<scripts>/tools/<tool>.mjs` (+ `.map`, its
   * code); `<scripts>/mcp_tools_server.cjs` when needed; the vendor files `<scripts>/vendor/**`
   * (see scriptsFolder, vendor.ts).
   */
  files: OwnedFile[]
  /** Absolute paths of the local (non-node_modules) files the scripts were built from, for watch mode. */
  inputs: string[]
  diagnostics: Diagnostic[]
}

export interface BundleOptions {
  /** The absolute folder the tree will be written into (default: the root): source maps name the tools' modules relative to it. */
  target?: string
  /**
   * Called exactly once, as soon as esbuild has the work (or when there is none), so the caller's own
   * work runs alongside esbuild's rather than after it.
   */
  whileBundling?: () => void
}

/** The last build of one tool's code: reused while its entry and every file it read are as they were. */
interface ToolBuild {
  entry: string
  outfile: string
  files: ScriptFile[]
  needs: VendorModule[]
  inputs: InputStamps
  /** The local files it read, absolute. */
  localInputs: string[]
  warnings: Message[]
}

type ToolOutcome = { ok: true; build: ToolBuild } | { ok: false; errors: Message[]; warnings: Message[] }


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
  private readonly tools = new Map<string, ToolBuild>()
  /** The names esbuild knows the generated entries by: their code is ours, so a message there names no user file. */
  private readonly entryNames = new Set<string>()
  private queue: Promise<unknown> = Promise.resolve()
  /** The local inputs of the last successful build, still worth watching when a build fails. */
  private lastInputs: string[] = []

  constructor(root: string) {
    this.root = resolve(root)
  }

  /** Builds run one at a time: they share the kept builds. */
  build(plan: Plan, options: BundleOptions = {}): Promise<BundleResult> {
    const run = this.queue.then(async () => {
      let called = false
      const alongside = () => {
        if (called) return
        called = true
        options.whileBundling?.()
      }
      try {
        return await this.buildNow(plan, resolve(this.root, options.target ?? '.'), alongside)
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
  }

  private async buildNow(plan: Plan, target: string, whileBundling: () => void): Promise<BundleResult> {
    const diagnostics = this.checkPlan(plan)
    if (diagnostics.length > 0) return { files: [], inputs: this.inputsAfterFailure(plan, []), diagnostics }
    if (plan.tools.length === 0) {
      this.tools.clear()
      return { files: [], inputs: [], diagnostics: [] }
    }
    const context: EntryContext = { root: this.root, runtime: this.vendor.runtimeFiles(), version: this.vendor.own().version }
    const folder = scriptsFolder(plan.serverName)
    const scriptsDir = join(target, ...folder.split('/'))
    for (const name of this.tools.keys()) if (!plan.tools.some((tool) => tool.name === name)) this.tools.delete(name)

    const building = Promise.all(plan.tools.map((tool) => this.buildTool(plan, tool, context, scriptsDir)))
    whileBundling()
    const outcomes = await building
    const failed = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome]))
    const warnings = outcomes.flatMap((outcome) => (outcome.ok ? [] : outcome.warnings))
    if (failed.length > 0) {
      const errors = failed.flatMap((outcome) => outcome.errors)
      return {
        files: [],
        inputs: this.inputsAfterFailure(plan, errors),
        diagnostics: [...errors.map((m) => this.diagnostic(m, 'error')), ...warnings.map((m) => this.diagnostic(m, 'warning'))],
      }
    }
    const builds = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.build] : []))
    const vendorFiles = await this.vendor.build(
      builds.flatMap((build) => build.needs),
      { withServer: needsMcpServer(plan), typebox: plan.tools.some((tool) => tool.schemaKind === 'typebox') },
    )
    const scriptFiles: ScriptFile[] = [
      ...plan.tools.map((tool) => ({ path: `${tool.name}.mjs`, text: toolLauncherSource(tool, context) })),
      ...builds.flatMap((build) => build.files),
      ...vendorFiles,
    ]
    if (needsMcpServer(plan)) scriptFiles.push({ path: `${MCP_SERVER_ENTRY}.cjs`, text: mcpServerSource(plan, context) })
    const files = scriptFiles.map((file): OwnedFile => ({ kind: 'owned', path: `${folder}/${file.path}`, content: file.text })).sort(byPath)
    this.lastInputs = [...new Set(builds.flatMap((build) => build.localInputs))].sort()
    return { files, inputs: this.lastInputs, diagnostics: builds.flatMap((build) => build.warnings.map((m) => this.diagnostic(m, 'warning'))) }
  }

  /** The tool's last build while nothing it was built from changed, else a new one. */
  private async buildTool(plan: Plan, tool: PlannedTool, context: EntryContext, scriptsDir: string): Promise<ToolOutcome> {
    const entry = toolCodeSource(plan, tool, context)
    const codeFile = toolCodeFile(tool)
    const outfile = join(scriptsDir, ...codeFile.split('/'))
    // The entry is built from stdin, under the name of the file its code ends up in: the map and the
    // file's comments name the code file itself for the generated lines.
    const entryName = relative(this.root, outfile).split(sep).join('/')
    this.entryNames.add(entryName)
    const last = this.tools.get(tool.name)
    if (last && last.entry === entry && last.outfile === outfile && last.inputs.unchanged()) return { ok: true, build: last }
    this.tools.delete(tool.name)
    const startedAt = Date.now()
    const hashedBefore = FileVersion.hashRecent(last?.inputs.files() ?? [], startedAt)
    const needs: VendorModule[] = []
    const options = (banner: string | undefined) =>
      esbuild({
        stdin: { contents: entry, resolveDir: this.root, sourcefile: entryName, loader: 'js' },
        absWorkingDir: this.root,
        outfile,
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
        plugins: [this.vendor.plugin(codeFile, needs)],
      })
    let result
    try {
      result = await options(undefined)
      // A CommonJS package bundled into the script may `require` node built-ins: give it a `require`.
      if (result.outputFiles.some((file) => file.text.includes('__require('))) {
        needs.length = 0
        result = await options(REQUIRE_BANNER)
      }
    } catch (error) {
      const failure = error as Partial<BuildFailure>
      if (!Array.isArray(failure.errors)) throw error
      return { ok: false, errors: failure.errors, warnings: failure.warnings ?? [] }
    }
    const read = Object.keys(result.metafile.inputs)
      .filter((input) => input !== entryName)
      .map((input) => resolve(this.root, input))
    const build: ToolBuild = {
      entry,
      outfile,
      files: result.outputFiles.map((file) => ({ path: file.path === outfile ? codeFile : `${codeFile}.map`, text: file.text })),
      needs,
      inputs: InputStamps.take(read, startedAt, hashedBefore),
      localInputs: read.filter((input) => !/[\\/]node_modules[\\/]/.test(input)),
      warnings: result.warnings,
    }
    this.tools.set(tool.name, build)
    return { ok: true, build }
  }

  /**
   * A failed build has no metafile, yet watch mode must keep watching, above all the file that
   * broke: the last good build's inputs, the tools' modules, and every file an error points at.
   */
  private inputsAfterFailure(plan: Plan, errors: readonly Message[]): string[] {
    const named = errors.flatMap((error) => (error.location && !this.entryNames.has(error.location.file) ? [resolve(this.root, error.location.file)] : []))
    const modules = plan.tools.map((tool) => toolModulePath(this.root, tool)).filter((path) => existsSync(path))
    return [...new Set([...this.lastInputs, ...modules, ...named.filter((path) => !/[\\/]node_modules[\\/]/.test(path))])].sort()
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

  private diagnostic(message: Message, severity: Diagnostic['severity']): Diagnostic {
    const location = message.location
    const inEntry = location !== null && this.entryNames.has(location.file)
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
