import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import type { BuildOptions, OutputFile, PartialMessage, PluginBuild } from 'esbuild'
import { type Diagnostic, formatDiagnostic } from '../diagnostics.js'
import { diagnosticsOf, locationOf, SummaryGate, summaryLine, WarningGate } from './report.js'
import { isInside } from './paths.js'
import type { OacSession } from './session.js'

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
}

/**
 * The entry points as esbuild hands them to `onResolve`, so their resolution can carry our watch lists:
 * as written, and with `./` in front of a relative path written without one (esbuild adds it).
 */
export function entryPointFilter(options: BuildOptions): RegExp | undefined {
  const entries = options.entryPoints
  if (!entries) return undefined
  const specifiers = Array.isArray(entries)
    ? entries.map((entry) => (typeof entry === 'string' ? entry : entry.in))
    : Object.values(entries)
  if (specifiers.length === 0) return undefined
  const forms = specifiers.flatMap((specifier) => (isAbsolute(specifier) || specifier.startsWith('.') ? [specifier] : [specifier, `./${specifier}`]))
  return new RegExp(`^(?:${[...new Set(forms)].map(escapeRegExp).join('|')})$`)
}

/** The source line a diagnostic points at, for esbuild's code frame (it shows an empty one without it). */
function lineOf(file: string, line: number): string | undefined {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/)[line - 1]
  } catch {
    return undefined
  }
}

function message(diagnostic: Diagnostic, root: string): PartialMessage {
  const loc = locationOf(diagnostic, root)
  const lineText = loc && lineOf(loc.file, loc.line)
  return {
    id: diagnostic.code,
    text: `[${diagnostic.code}] ${diagnostic.message}`,
    ...(diagnostic.fix && { notes: [{ text: `fix: ${diagnostic.fix}` }] }),
    ...(loc && {
      location: { file: loc.file, line: loc.line, column: Math.max(0, loc.column - 1), ...(lineText !== undefined && { lineText, length: 0 }) },
    }),
  }
}

function split(diagnostics: readonly Diagnostic[], root: string): { errors: PartialMessage[]; warnings: PartialMessage[] } {
  return {
    errors: diagnostics.filter((d) => d.severity === 'error').map((d) => message(d, root)),
    warnings: diagnostics.filter((d) => d.severity === 'warning').map((d) => message(d, root)),
  }
}

function outputFile(path: string, text: string): OutputFile {
  const contents = Buffer.from(text, 'utf8')
  return { path, contents, hash: createHash('sha256').update(contents).digest('base64url').slice(0, 16), text }
}

/**
 * esbuild's own hooks, beside the universal virtual-module hooks: unplugin's esbuild adapter cannot
 * return `watchDirs` (so new files would not rebuild), allows `addWatchFile` only in resolve/load/transform,
 * runs `writeBundle` after failed builds too, and writes emitted files to disk even with `write: false`.
 */
/** Marks the plugin's own resolution of an entry point, which its entry callback must not take again. */
const ENTRY_LOOKUP = Symbol('unplugin-oac entry lookup')

export function esbuildSetup(session: OacSession): (build: PluginBuild) => void {
  return (build: PluginBuild) => {
    const options = build.initialOptions
    session.useRoot(options.absWorkingDir ?? process.cwd())
    const workingDir = options.absWorkingDir ?? process.cwd()
    const outDir = options.outdir ? resolve(workingDir, options.outdir) : options.outfile ? dirname(resolve(workingDir, options.outfile)) : undefined
    const compileWarnings = new WarningGate()
    const writeWarnings = new WarningGate()
    const summaries = new SummaryGate()
    // esbuild's JS API prints only warnings and errors by default; the summary is an info message.
    const printsInfo = options.logLevel === 'info' || options.logLevel === 'debug' || options.logLevel === 'verbose'
    // A note (a warning the config turned down) is info too: esbuild's messages are errors and warnings.
    const shown = (diagnostics: readonly Diagnostic[]) => {
      if (printsInfo) for (const note of diagnostics.filter((d) => d.severity === 'note')) process.stderr.write(`[unplugin-oac] ${formatDiagnostic(note)}\n`)
      return split(diagnostics, session.root)
    }
    // With write: true the tree is written (in or outside outdir), so the cache may serve it; with write: false
    // a tree inside outdir joins the output files, whose bytes come from a compile.
    const cacheTarget = () => (options.write === false || (outDir === undefined && session.options.target === undefined) ? undefined : session.target(outDir))

    const watchLists = () => {
      const target = session.target(outDir)
      const result = session.settledResult()
      const outputs = result ? result.outputs.map((path) => resolve(target, path)) : []
      const plan = session.watchPlan([target], outputs)
      return { watchFiles: plan.files, watchDirs: plan.dirs }
    }

    build.onStart(async () => {
      try {
        const result = await session.refresh(cacheTarget())
        return shown(compileWarnings.changed(result.warnings))
      } catch (error) {
        compileWarnings.reset()
        session.markReported(error)
        return split(diagnosticsOf(error), session.root)
      }
    })

    // Every entry point's resolution carries the watch lists, so edits rebuild even when no module imports
    // virtual:oac. esbuild takes watch lists only with a path, so the entry is resolved here as esbuild
    // would (`build.resolve`, marked so this callback lets its own call through).
    const entries = entryPointFilter(options)
    if (entries) {
      build.onResolve({ filter: entries }, async (args) => {
        if (args.kind !== 'entry-point' || args.pluginData === ENTRY_LOOKUP) return undefined
        const resolved = await build.resolve(args.path, { kind: 'entry-point', resolveDir: args.resolveDir, pluginData: ENTRY_LOOKUP })
        if (resolved.errors.length > 0) return { errors: resolved.errors, warnings: resolved.warnings }
        const lists = watchLists()
        return {
          path: resolved.path,
          namespace: resolved.namespace,
          external: resolved.external,
          sideEffects: resolved.sideEffects,
          suffix: resolved.suffix,
          pluginData: resolved.pluginData,
          warnings: resolved.warnings,
          watchFiles: lists.watchFiles,
          watchDirs: lists.watchDirs,
        }
      })
    }

    build.onEnd(async (result) => {
      if (result.errors.length > 0) return
      const target = session.target(outDir)
      try {
        const built = await session.latest()
        const outputs = result.outputFiles
        // With write: true esbuild writes nothing of ours, so write/ writes the tree itself, in or outside outdir.
        if (!outputs) {
          const { warnings, summary } = await session.writeInto(target, built)
          if (printsInfo && summaries.changed(summary)) process.stderr.write(`[unplugin-oac] ${summaryLine(summary, session.root)}\n`)
          return shown(writeWarnings.changed(warnings))
        }
        // write: false: nothing touches the disk; a tree inside outdir joins the build's output files.
        if (!outDir || !isInside(target, outDir)) return
        const generated = built.generated ?? (await session.generated())
        const { treeAssets } = await import('./output.js')
        const byPath = new Map(outputs.map((file, index) => [file.path, index]))
        const { assets } = await treeAssets(
          generated,
          target,
          outDir,
          (fileName) => {
            const index = byPath.get(resolve(outDir, fileName))
            return index === undefined ? undefined : outputs[index]!.text
          },
          { writeFirst: false, force: false },
        )
        for (const asset of assets) {
          const file = outputFile(resolve(outDir, asset.fileName), asset.source)
          const index = byPath.get(file.path)
          if (index === undefined) outputs.push(file)
          else outputs[index] = file
        }
      } catch (error) {
        return split(diagnosticsOf(error), session.root)
      }
    })

    build.onDispose(() => {
      void session.release()
    })
  }
}
