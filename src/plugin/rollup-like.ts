import { dirname, join, resolve } from 'node:path'
import { type Diagnostic, formatDiagnostic } from '../diagnostics.js'
import { bundlerLog, type BundlerLog, errorsOf, SummaryGate, summaryLine, type TreeSummary, WarningGate } from './report.js'
import { isInside } from './paths.js'
import type { BuildResult, OacSession } from './session.js'

/** The part of the Rollup / Rolldown / Vite plugin context these hooks use. */
interface HostContext {
  addWatchFile(id: string): void
  emitFile(file: { type: 'asset'; fileName: string; source: string }): string
  warn(log: BundlerLog): void
  info(log: string): void
  error(log: BundlerLog): never
  /** Vite only: the environment being built. SSR-like environments drop emitted assets unless `build.emitAssets`. */
  environment?: { config: { build: { emitAssets: boolean } } }
}

interface HostOutputOptions {
  dir?: string | undefined
  file?: string | undefined
}

type HostBundle = Record<string, { type: 'asset'; source: string | Uint8Array } | { type: 'chunk' }>

/** A tree to write into a target outside the output folder once the bundle is written. */
interface PendingWrite {
  target: string
  result: BuildResult
}

function outputFolder(options: HostOutputOptions): string | undefined {
  if (options.dir) return resolve(options.dir)
  if (options.file) return dirname(resolve(options.file))
  return undefined
}

/**
 * The build hooks for Rollup, Rolldown and Vite (build mode). Every hook runs on the host's own plugin
 * context. `defaultOutDir` gives Vite's resolved `build.outDir`, known before the bundle is written;
 * `warningsShowNoPlace` says the host prints a warning's text without its location (Vite).
 */
export function rollupLikeHooks(session: OacSession, defaultOutDir: () => string | undefined = () => undefined, host: { warningsShowNoPlace?: boolean } = {}) {
  const compileWarnings = new WarningGate()
  const writeWarnings = new WarningGate()
  const summaries = new SummaryGate()
  const warningLog = (warning: Diagnostic) => bundlerLog([warning], session.root, { placeInText: host.warningsShowNoPlace ?? false })
  const pendingWrites = new Map<string, PendingWrite>()
  const targets = new Set<string>()

  /** The target known before the build, unless the tree goes into the output folder as assets (their bytes come from a compile). */
  function cacheTarget(): string | undefined {
    const outDir = defaultOutDir()
    if (session.options.target === undefined && outDir === undefined) return undefined
    const target = session.target(outDir)
    return outDir !== undefined && isInside(target, outDir) ? undefined : target
  }

  function knownTargets(): string[] {
    const fallback = defaultOutDir()
    if (session.options.target !== undefined || fallback !== undefined) targets.add(session.target(fallback))
    return [...targets]
  }

  /** A warning as the host's warning; a note (a warning the config turned down) as its info, which does not count as one. */
  function show(context: HostContext, diagnostic: Diagnostic): void {
    if (diagnostic.severity === 'note') context.info(formatDiagnostic(diagnostic))
    else context.warn(warningLog(diagnostic))
  }

  function reportWrite(context: HostContext, warnings: readonly Diagnostic[], summary: TreeSummary): void {
    for (const warning of writeWarnings.changed(warnings)) show(context, warning)
    if (summaries.changed(summary)) context.info(summaryLine(summary, session.root))
  }

  function watch(context: HostContext, result: BuildResult | undefined): void {
    const outputs = result ? knownTargets().flatMap((target) => result.outputs.map((path) => join(target, path))) : []
    const plan = session.watchPlan(knownTargets(), outputs)
    for (const file of plan.files) context.addWatchFile(file)
    for (const dir of plan.dirs) context.addWatchFile(dir)
  }

  return {
    async buildStart(this: HostContext): Promise<void> {
      let result: BuildResult
      try {
        result = await session.refresh(cacheTarget())
      } catch (error) {
        watch(this, undefined)
        compileWarnings.reset()
        session.markReported(error)
        return this.error(bundlerLog(errorsOf(error), session.root))
      }
      watch(this, result)
      for (const warning of compileWarnings.changed(result.warnings)) show(this, warning)
    },

    async generateBundle(this: HostContext, outputOptions: HostOutputOptions, bundle: HostBundle, isWrite = true): Promise<void> {
      const outDir = outputFolder(outputOptions)
      // Vite's default target is the client's folder for every environment; Rollup's is each output's own.
      const target = session.target(defaultOutDir() ?? outDir)
      targets.add(target)
      const result = await session.latest()
      const emitsAssets = this.environment?.config.build.emitAssets ?? true
      if (!outDir || !emitsAssets || !isInside(target, outDir)) {
        if (isWrite) pendingWrites.set(outDir ?? target, { target, result })
        return
      }
      const bundledText = (fileName: string) => {
        const asset = bundle[fileName]
        if (asset?.type !== 'asset') return undefined
        return typeof asset.source === 'string' ? asset.source : Buffer.from(asset.source).toString('utf8')
      }
      let delivered
      try {
        const generated = result.generated ?? (await session.generated())
        const { treeAssets } = await import('./output.js')
        delivered = await treeAssets(generated, target, outDir, bundledText, { writeFirst: isWrite, force: session.options.force ?? false })
      } catch (error) {
        return this.error(bundlerLog(errorsOf(error), session.root))
      }
      if (delivered.report) reportWrite(this, delivered.report.diagnostics, session.summary(target, delivered.report))
      for (const asset of delivered.assets) {
        const existing = bundle[asset.fileName]
        // Rollup and Rolldown only accept new assets through emitFile; one already in the bundle is updated in place.
        if (asset.replacesBundled && existing?.type === 'asset') existing.source = asset.source
        else this.emitFile({ type: 'asset', fileName: asset.fileName, source: asset.source })
      }
    },

    async writeBundle(this: HostContext, outputOptions: HostOutputOptions): Promise<void> {
      const outDir = outputFolder(outputOptions)
      const key = outDir ?? session.target(defaultOutDir())
      const pending = pendingWrites.get(key)
      if (!pending) return
      pendingWrites.delete(key)
      try {
        const { warnings, summary } = await session.writeInto(pending.target, pending.result)
        reportWrite(this, warnings, summary)
      } catch (error) {
        return this.error(bundlerLog(errorsOf(error), session.root))
      }
    },
  }
}
