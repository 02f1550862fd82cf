import { stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, resolve, sep } from 'node:path'
import type { Compiler, Generated, WriteReport } from '../api.js'
import type { Diagnostic } from '../diagnostics.js'
import { parseRegistrySpec, resolveModulePath } from '../load/spec.js'
import { packageRoot } from '../package-paths.js'
import { type CacheKey, currentBuild, readRecord, writeCachedBuild } from './build-cache.js'
import { debugRebuild } from '../debug.js'
import type { OacPluginOptions } from './options.js'
import { isInside } from './paths.js'
import type { TreeSummary } from './report.js'

/** Files and folders the host bundler should watch. */
export interface WatchPlan {
  files: string[]
  /** Folders of definition files, so new files there trigger a rebuild; never a folder we write into. */
  dirs: string[]
}

type Fingerprint = Map<string, string>

async function fingerprint(files: Iterable<string>): Promise<Fingerprint> {
  const entries = await Promise.all(
    [...new Set(files)].map(async (file) => {
      try {
        const info = await stat(file)
        return [file, `${info.mtimeMs}:${info.size}`] as const
      } catch {
        return [file, 'missing'] as const
      }
    }),
  )
  return new Map(entries)
}

async function unchanged(previous: Fingerprint): Promise<boolean> {
  return (await firstChange(previous)) === undefined
}

/** A watched file whose size or modification time differs from the fingerprint (or that appeared or went). */
async function firstChange(previous: Fingerprint): Promise<string | undefined> {
  const now = await fingerprint(previous.keys())
  for (const [file, mark] of previous) if (now.get(file) !== mark) return file
  return undefined
}

/** What putting the tree into a target gave: the write's warnings and what it did. */
export interface WriteOutcome {
  warnings: Diagnostic[]
  summary: TreeSummary
}

async function changeReason(previous: Fingerprint): Promise<string | undefined> {
  const changed = await firstChange(previous)
  return changed === undefined ? undefined : `${changed} changed`
}

/** What the build hooks use of a compile, whether it ran in this process or the build cache served it. */
export interface BuildResult {
  /** The code of `virtual:oac`. */
  manifestModule: string
  /** The compile's warnings, and its notes (warnings a config turned down), which hosts show as info. */
  warnings: Diagnostic[]
  /** The generated files, relative to the target. */
  outputs: string[]
  /** The compile's full result; absent when the build cache served the build. */
  generated?: Generated
  /** Set when the build cache served the build: the target whose tree is already written, and that write's warnings. */
  cached?: { target: string; writeWarnings: Diagnostic[] }
}

interface Settled {
  result?: BuildResult
  error?: unknown
  /** The watched files' state when the compile started, so an edit made during it is not lost. */
  fingerprint: Fingerprint
}

/**
 * The state one plugin instance keeps across builds, rebuilds and Vite environments: the pipeline's
 * Compiler (with its incremental script bundler) and the last result. A build asks `refresh()`, which
 * compiles only when a file the last result came from has changed, so the client and ssr builds of one
 * `vite build` share a single compile while every watch rebuild after an edit gets a fresh one.
 *
 * The first compile of an instance may be served by the build cache (build-cache.ts) instead, when the
 * host says which target the tree will be written into; later ones compare in memory. The pipeline is
 * imported only when something compiles, so a build the cache serves loads none of it.
 */
export class OacSession {
  readonly options: OacPluginOptions
  private projectRoot: string | undefined
  private compiler: Compiler | undefined
  private inFlight: Promise<Settled> | undefined
  private settled: Settled | undefined
  /** Source files of the last successful compile, still watched after a failed one so a fix rebuilds. */
  private knownFiles: string[] = []
  /** The target the host writes the tree into outside any bundle, as given to `refresh`: the one the cache records. */
  private cacheTarget: string | undefined
  private readonly reportedFailures = new WeakSet<object>()

  constructor(options: OacPluginOptions) {
    this.options = options
  }

  /** Marks a failed compile's error as shown by a build hook, so the load of virtual:oac does not show it again. */
  markReported(error: unknown): void {
    if (typeof error === 'object' && error !== null) this.reportedFailures.add(error)
  }

  wasReported(error: unknown): boolean {
    return typeof error === 'object' && error !== null && this.reportedFailures.has(error)
  }

  /** Sets the project root once the host knows it (an explicit `root` option always wins). */
  useRoot(hostRoot: string): void {
    const root = resolve(this.options.root ?? hostRoot)
    if (root === this.projectRoot) return
    const previous = this.compiler
    this.compiler = undefined
    this.projectRoot = root
    this.settled = undefined
    this.cacheTarget = undefined
    void previous?.dispose()
  }

  get root(): string {
    if (!this.projectRoot) this.useRoot(process.cwd())
    return this.projectRoot!
  }

  /** The registry module itself, watched even before the first compile succeeds. */
  get registryFile(): string | undefined {
    const spec = parseRegistrySpec(this.options.registry)
    return spec && resolveModulePath(resolve(this.root, spec.path))
  }

  /** The absolute target folder: the home with scope `user`, the `target` option (or the plugin's folder), else the host's output folder. */
  target(outDir: string | undefined): string {
    if (this.options.scope === 'user') return homedir()
    const given = this.options.plugin?.dir ?? this.options.target
    if (given !== undefined) return resolve(this.root, given)
    if (outDir === undefined) {
      throw new Error('unplugin-oac: the build has no output folder, so option `target` must say where the agent tree goes (e.g. target: ".")')
    }
    return resolve(outDir)
  }

  /**
   * The current compile: reuses the last result while none of its files changed, else compiles again.
   * Concurrent callers share one compile. Throws the pipeline's OacError on errors. `cacheTarget` is the
   * absolute target the tree will be written into (not emitted as assets), when the host knows it: the
   * first compile then asks the build cache for that target.
   */
  async refresh(cacheTarget?: string): Promise<BuildResult> {
    if (cacheTarget !== undefined) this.cacheTarget = cacheTarget
    if (!this.inFlight) {
      const last = this.settled
      const reason = !last ? 'first build of this plugin instance' : last.error !== undefined ? 'the last compile failed' : await changeReason(last.fingerprint)
      if (reason !== undefined) {
        const askCache = last === undefined && this.options.cache !== false ? cacheTarget : undefined
        debugRebuild('compile: %s%s', reason, askCache === undefined ? '' : '; asking the build cache first')
        this.inFlight ??= this.compile(askCache)
      } else {
        debugRebuild('reusing the last compile: no watched file changed')
      }
    }
    const settled = this.inFlight ? await this.inFlight : this.settled!
    return unwrap(settled)
  }

  /** The result of the compile in progress or the last one, compiling only when there is none (the virtual module's load). */
  async latest(): Promise<BuildResult> {
    if (this.inFlight) return unwrap(await this.inFlight)
    if (this.settled) return unwrap(this.settled)
    return this.refresh()
  }

  /** The current compile's full result, as `refresh()`, compiling in this process when the cache served it. */
  async generated(): Promise<Generated> {
    const result = await this.refresh()
    if (result.generated) return result.generated
    // Only an instance's first compile asks the cache, so the compile in flight (or this one) runs here.
    if (!this.inFlight) debugRebuild('compile: the build cache served this build, but the tree goes into the bundle, whose bytes come from a compile')
    this.inFlight ??= this.compile(undefined)
    return unwrap(await this.inFlight).generated!
  }

  /**
   * Puts the tree into `target`, outside any bundle, and returns the write's warnings and summary. A build the cache
   * served for this target has nothing to write; else the tree is written (compiled first if need be)
   * and, for the cache's target, recorded. Throws OacError when the write fails.
   */
  async writeInto(target: string, result: BuildResult): Promise<WriteOutcome> {
    if (result.cached?.target === target) {
      return { warnings: result.cached.writeWarnings, summary: this.summary(target, { written: [], unchanged: result.outputs, removed: [] }, true) }
    }
    const generated = result.generated ?? (await this.generated())
    const { writeTree } = await import('./output.js')
    const report = await writeTree(generated, target, this.options.force ?? false)
    await this.record(target, generated, report.diagnostics)
    return { warnings: report.diagnostics, summary: this.summary(target, report) }
  }

  /** What a write did in `target`, for the build's summary line. */
  summary(target: string, report: Pick<WriteReport, 'written' | 'unchanged' | 'removed'>, cached = false): TreeSummary {
    const { written, unchanged, removed } = report
    return { target, config: this.options.config ?? 'default', written, unchanged, removed, ...(cached && { cached }) }
  }

  private async record(target: string, generated: Generated, writeWarnings: Diagnostic[]): Promise<void> {
    const settled = this.settled
    const result = settled?.result
    // Only the current compile, written into the target the next build will ask the cache about.
    if (this.options.cache === false || target !== this.cacheTarget || result?.generated !== generated) return
    const owned = new Map(generated.files.flatMap((file) => (file.kind === 'owned' ? [[file.path, file.content] as const] : [])))
    await writeCachedBuild(
      this.cacheKey(target),
      { manifestModule: result.manifestModule, watchFiles: generated.watchFiles, outputs: result.outputs, warnings: result.warnings, writeWarnings },
      { owner: generated.plan.serverName, owned, inputsUnchanged: () => unchanged(settled!.fingerprint) },
    )
  }

  private cacheKey(target: string): CacheKey {
    return { root: this.root, target, options: this.options }
  }

  private async compile(cacheTarget: string | undefined): Promise<Settled> {
    // The cache only ever saves work: if it cannot be read, the build compiles.
    const cached = cacheTarget === undefined ? undefined : await this.fromCache(cacheTarget).catch(() => undefined)
    const settled = cached ?? (await this.compileHere())
    this.settled = settled
    this.inFlight = undefined
    return settled
  }

  private async fromCache(target: string): Promise<Settled | undefined> {
    const key = this.cacheKey(target)
    const record = await readRecord(key)
    if (!record) return undefined
    // Taken before the contents are checked, so an edit made meanwhile is seen by the next refresh.
    const before = await fingerprint(record.watchFiles)
    const build = await currentBuild(key, record)
    if (!build) return undefined
    this.knownFiles = build.watchFiles
    const { manifestModule, warnings, outputs, writeWarnings } = build
    return { result: { manifestModule, warnings, outputs, cached: { target, writeWarnings } }, fingerprint: before }
  }

  private async compileHere(): Promise<Settled> {
    const before = await fingerprint(this.watchedSources())
    try {
      const [{ Compiler }, { manifestModule, manifestOf }] = await Promise.all([import('../api.js'), import('./manifest.js')])
      const compiler = (this.compiler ??= new Compiler(this.root))
      const { plugin, ...options } = this.options
      const { dir: _dir, ...identity } = plugin ?? { dir: '' }
      const generated = await compiler.generate({ ...options, ...(plugin && { plugin: identity }) })
      this.knownFiles = generated.watchFiles
      const fresh = [...generated.watchFiles].filter((file) => !before.has(file))
      const after = await fingerprint(fresh)
      const sources = new Set(generated.watchFiles)
      const result: BuildResult = {
        manifestModule: manifestModule(manifestOf(generated.plan, generated.files)),
        warnings: generated.diagnostics.filter((d) => d.severity !== 'error'),
        outputs: generated.files.map((file) => file.path),
        generated,
      }
      return { result, fingerprint: new Map([...before, ...after].filter(([file]) => sources.has(file))) }
    } catch (error) {
      return { error, fingerprint: before }
    }
  }

  private watchedSources(): string[] {
    const registry = this.registryFile
    return [...new Set([...this.knownFiles, ...(registry ? [registry] : [])])].sort()
  }

  /**
   * What to watch: every source file of the last compile (the registry module at least; our own modules
   * aside), and the folders of the project's own definition files. A folder is left out when it holds an
   * agent-tree target or one of the given output paths: watching what we write would rebuild on every write.
   */
  watchPlan(targets: readonly string[], outputs: readonly string[]): WatchPlan {
    const written = new Set(outputs)
    // Our own modules (the runtime bundled into the scripts) are not the project's: installed, they never change.
    const files = this.watchedSources().filter((file) => !written.has(file) && !isInside(file, packageRoot))
    const dirs = new Set<string>()
    for (const file of files) {
      const dir = dirname(file)
      if (dir.split(sep).includes('node_modules')) continue
      if (targets.some((target) => isInside(target, dir))) continue
      if (outputs.some((output) => isInside(output, dir))) continue
      dirs.add(dir)
    }
    return { files, dirs: [...dirs].sort() }
  }

  /** The last successful result, if the last compile succeeded. */
  settledResult(): BuildResult | undefined {
    return this.settled?.result
  }

  /**
   * Ends the Compiler's esbuild service after a build that is not watching, keeping the last result:
   * a later build of the same plugin instance starts a new Compiler only if something changed.
   */
  async release(): Promise<void> {
    await this.inFlight
    const compiler = this.compiler
    this.compiler = undefined
    await compiler?.dispose()
  }
}

function unwrap(settled: Settled): BuildResult {
  if (settled.error !== undefined) throw settled.error
  return settled.result!
}
