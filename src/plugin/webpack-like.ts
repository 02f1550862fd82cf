import { join } from 'node:path'
import { type Diagnostic, formatDiagnostic } from '../diagnostics.js'
import { bundlerLog, diagnosticsOf, SummaryGate, summaryLine, type TreeSummary, WarningGate } from './report.js'
import { isInside, posixRelative } from './paths.js'
import type { BuildResult, OacSession } from './session.js'

const NAME = 'unplugin-oac'

/** The part of a webpack 5 / Rspack asset source these hooks use. */
interface HostSource {
  source(): string | Buffer | ArrayBuffer
}

interface HostCompilation<S extends HostSource> {
  errors: Error[]
  warnings: Error[]
  fileDependencies: { add(file: string): void; delete(file: string): boolean } & Iterable<string>
  contextDependencies: { add(dir: string): void }
  getAsset(name: string): { source: S } | undefined | void
  emitAsset(name: string, source: S, info?: { minimized: boolean }): void
  updateAsset(name: string, source: S, info?: { minimized: boolean }): void
  hooks: { processAssets: { tapPromise(options: { name: string; stage: number }, fn: () => Promise<void>): void } }
}

interface Tap<Args extends unknown[]> {
  tap(name: string, fn: (...args: Args) => void): void
}
interface TapPromise<Args extends unknown[]> {
  tapPromise(name: string, fn: (...args: Args) => Promise<void>): void
}

/** The part of a webpack 5 / Rspack compiler these hooks use; both hand the same shapes to plugins. */
export interface HostCompiler<S extends HostSource> {
  options: { context?: string | undefined; output: { path?: string | undefined } }
  watchMode: boolean
  getInfrastructureLogger(name: string): { info(message: string): void }
  webpack: {
    sources: { RawSource: new (source: string) => S }
    WebpackError: new (message?: string) => Error & { file?: string; hideStack?: boolean }
    Compilation: { PROCESS_ASSETS_STAGE_ADDITIONS: number }
  }
  hooks: {
    thisCompilation: Tap<[HostCompilation<S>, ...unknown[]]>
    make: TapPromise<[HostCompilation<S>]>
    afterCompile: Tap<[HostCompilation<S>]>
    afterEmit: TapPromise<[HostCompilation<S>]>
    done: TapPromise<[unknown]>
    watchClose: Tap<[]>
    shutdown: TapPromise<[]>
  }
}

function text(source: HostSource): string {
  const value = source.source()
  return typeof value === 'string' ? value : Buffer.from(value as ArrayBuffer).toString('utf8')
}

/**
 * webpack 5 and Rspack: compile in `make`, emit the agent tree in `processAssets` (after assets other
 * plugins copy, so a copied `.mcp.json` is merged into), watch through `fileDependencies` and, for new
 * files, `contextDependencies` (webpack ignores new files in a folder given as a file dependency), and
 * write a target outside the output folder in `afterEmit` when the compilation has no errors.
 */
export function applyWebpackLike<S extends HostSource>(
  session: OacSession,
  compiler: HostCompiler<S>,
  /** The path prefix of unplugin's fake files for virtual modules, when the watcher should not watch them. */
  virtualModulePrefix?: string,
): void {
  session.useRoot(compiler.options.context ?? process.cwd())
  const outDir = compiler.options.output.path
  const compileWarnings = new WarningGate()
  const writeWarnings = new WarningGate()
  const summaries = new SummaryGate()
  /** This compilation's result; undefined when its compile failed. */
  let current: BuildResult | undefined

  const target = () => session.target(outDir)
  const emitsAssets = () => outDir !== undefined && isInside(target(), outDir)
  /** A tree written after the build may come from the cache; emitted as assets, its bytes come from a compile. */
  const cacheTarget = () => (outDir === undefined && session.options.target === undefined) || emitsAssets() ? undefined : target()

  /**
   * Each diagnostic as a webpack error or warning: `ERROR in <file>:<line>:<column>` heads its text, so the text leaves the place out.
   * A note (a warning the config turned down) goes to the compiler's logger as info, which does not count as a warning.
   */
  function push(list: Error[], diagnostics: readonly Diagnostic[]): void {
    for (const diagnostic of diagnostics) {
      if (diagnostic.severity === 'note') {
        compiler.getInfrastructureLogger(NAME).info(formatDiagnostic(diagnostic))
        continue
      }
      const log = bundlerLog([diagnostic], session.root)
      const error = new compiler.webpack.WebpackError(`[${NAME}] ${log.message}`)
      if (log.loc) error.file = `${posixRelative(session.root, log.loc.file)}:${log.loc.line}:${log.loc.column}`
      error.hideStack = log.stack === ''
      list.push(error)
    }
  }

  function reportWrite(compilation: HostCompilation<S>, warnings: readonly Diagnostic[], summary: TreeSummary): void {
    push(compilation.warnings, writeWarnings.changed(warnings))
    // The compiler's logger: it prints whatever the stats preset, as the other bundlers' build logs do.
    if (summaries.changed(summary)) compiler.getInfrastructureLogger(NAME).info(summaryLine(summary, session.root))
  }

  compiler.hooks.make.tapPromise(NAME, async (compilation) => {
    current = undefined
    try {
      const result = await session.refresh(cacheTarget())
      current = result
      push(compilation.warnings, compileWarnings.changed(result.warnings))
    } catch (error) {
      compileWarnings.reset()
      session.markReported(error)
      push(compilation.errors, diagnosticsOf(error).filter((d) => d.severity === 'error'))
    }
  })

  const addDependencies = (compilation: HostCompilation<S>) => {
    const result = session.settledResult()
    const outputs = result ? result.outputs.map((path) => join(target(), path)) : []
    const plan = session.watchPlan([target()], outputs)
    for (const file of plan.files) compilation.fileDependencies.add(file)
    for (const dir of plan.dirs) compilation.contextDependencies.add(dir)
    // webpack's watcher looks for unplugin's in-memory virtual:oac on the real disk, reports it removed and
    // rebuilds once at startup. Its content depends only on the files above, which stay watched.
    if (virtualModulePrefix) {
      for (const file of [...compilation.fileDependencies]) if (file.startsWith(virtualModulePrefix)) compilation.fileDependencies.delete(file)
    }
  }
  compiler.hooks.afterCompile.tap(NAME, addDependencies)

  compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
    compilation.hooks.processAssets.tapPromise({ name: NAME, stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONS }, async () => {
      const result = current
      // A failed compilation gets no tree: with emitOnErrors it would still be written.
      if (!emitsAssets() || !outDir || !result || compilation.errors.length > 0) return
      try {
        const generated = result.generated ?? (await session.generated())
        const { treeAssets } = await import('./output.js')
        const { assets, report } = await treeAssets(
          generated,
          target(),
          outDir,
          (name) => {
            const asset = compilation.getAsset(name)
            return asset ? text(asset.source) : undefined
          },
          { writeFirst: true, force: session.options.force ?? false },
        )
        if (report) reportWrite(compilation, report.diagnostics, session.summary(target(), report))
        for (const asset of assets) {
          const source = new compiler.webpack.sources.RawSource(asset.source)
          // `minimized` keeps Terser / SWC from minifying our scripts again: the bytes must stay write/'s.
          if (compilation.getAsset(asset.fileName)) compilation.updateAsset(asset.fileName, source, { minimized: true })
          else compilation.emitAsset(asset.fileName, source, { minimized: true })
        }
      } catch (error) {
        push(compilation.errors, diagnosticsOf(error).filter((d) => d.severity === 'error'))
      }
    })
  })

  compiler.hooks.afterEmit.tapPromise(NAME, async (compilation) => {
    const result = current
    if (emitsAssets() || compilation.errors.length > 0 || !result) return
    try {
      const { warnings, summary } = await session.writeInto(target(), result)
      reportWrite(compilation, warnings, summary)
    } catch (error) {
      push(compilation.errors, diagnosticsOf(error).filter((d) => d.severity === 'error'))
    }
  })

  compiler.hooks.done.tapPromise(NAME, async () => {
    if (!compiler.watchMode) await session.release()
  })
  // The Node API's `watching.close()` runs watchClose, not shutdown (that takes `compiler.close()` too, which
  // webpack-cli calls and a script may not): the esbuild service ends here, or it keeps the process alive.
  compiler.hooks.watchClose.tap(NAME, () => void session.release())
  compiler.hooks.shutdown.tapPromise(NAME, () => session.release())
}
