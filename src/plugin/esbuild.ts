import { createHash } from 'node:crypto'
import { dirname, resolve } from 'node:path'
import type { BuildOptions, OutputFile, PartialMessage, PluginBuild } from 'esbuild'
import type { Diagnostic } from '../diagnostics.js'
import { diagnosticsOf, locationOf } from './report.js'
import { type BuildResult, isInside, type OacSession } from './session.js'

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
}

/** The entry points as written in the options, so their resolution can carry our watch lists. */
function entryPointFilter(options: BuildOptions): RegExp | undefined {
  const entries = options.entryPoints
  if (!entries) return undefined
  const specifiers = Array.isArray(entries)
    ? entries.map((entry) => (typeof entry === 'string' ? entry : entry.in))
    : Object.values(entries)
  if (specifiers.length === 0) return undefined
  return new RegExp(`^(?:${specifiers.map(escapeRegExp).join('|')})$`)
}

function message(diagnostic: Diagnostic, root: string): PartialMessage {
  const loc = locationOf(diagnostic, root)
  return {
    id: diagnostic.code,
    text: `${diagnostic.message}${diagnostic.fix ? `\nfix: ${diagnostic.fix}` : ''}`,
    ...(loc && { location: { file: loc.file, line: loc.line, column: Math.max(0, loc.column - 1) } }),
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
export function esbuildSetup(session: OacSession): (build: PluginBuild) => void {
  return (build: PluginBuild) => {
    const options = build.initialOptions
    session.useRoot(options.absWorkingDir ?? process.cwd())
    const workingDir = options.absWorkingDir ?? process.cwd()
    const outDir = options.outdir ? resolve(workingDir, options.outdir) : options.outfile ? dirname(resolve(workingDir, options.outfile)) : undefined
    const reported = new WeakSet<BuildResult>()
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
        if (reported.has(result)) return
        reported.add(result)
        return split(result.warnings, session.root)
      } catch (error) {
        return split(diagnosticsOf(error), session.root)
      }
    })

    // Every entry point's resolution carries the watch lists, so edits rebuild even when no module imports
    // virtual:oac. A callback that returns no path lets esbuild resolve the entry as usual.
    const entries = entryPointFilter(options)
    if (entries) build.onResolve({ filter: entries }, (args) => (args.kind === 'entry-point' ? watchLists() : undefined))

    build.onEnd(async (result) => {
      if (result.errors.length > 0) return
      const target = session.target(outDir)
      try {
        const built = await session.latest()
        const outputs = result.outputFiles
        // With write: true esbuild writes nothing of ours, so write/ writes the tree itself, in or outside outdir.
        if (!outputs) return split(await session.writeInto(target, built), session.root)
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
