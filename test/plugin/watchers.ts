import { lstat, lutimes, readdir, utimes } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { rspack } from '@rspack/core'
import * as esbuild from 'esbuild'
import { watch as rolldownWatch } from 'rolldown'
import { watch as rollupWatch } from 'rollup'
import { build as viteBuild } from 'vite'
import webpack from 'webpack'
import oacEsbuild from '../../src/esbuild.js'
import oacRolldown from '../../src/rolldown.js'
import oacRollup from '../../src/rollup.js'
import oacRspack from '../../src/rspack.js'
import oacVite from '../../src/vite.js'
import oacWebpack from '../../src/webpack.js'
import { APP_BUNDLE, type BuildSpec, type BundlerName } from './bundlers.js'

/** A bundler in watch mode, counting the builds it finishes (successful or not). */
export interface Watching {
  readonly builds: number
  readonly failures: number
  /** The last failed build's error text. */
  readonly lastError: string
  /** What the watcher reported changed before each rebuild (webpack and rspack), for failure messages. */
  readonly triggers: readonly string[]
  close(): Promise<void>
}

class Counter {
  builds = 0
  failures = 0
  lastError = ''
  readonly triggers: string[] = []
  done(error?: unknown): void {
    this.builds++
    if (error !== undefined) {
      this.failures++
      this.lastError = error instanceof Error ? error.message : String(error)
    }
  }
}

interface RollupLikeWatcher {
  on(event: 'event', listener: (event: { code: string; error?: unknown; result?: { close(): Promise<void> } | null }) => void): unknown
  close(): Promise<void>
}

function countRollupLike(watcher: RollupLikeWatcher, counter: Counter): Watching {
  watcher.on('event', (event) => {
    if (event.code === 'BUNDLE_END') counter.done()
    if (event.code === 'ERROR') counter.done(event.error)
    if (event.code === 'BUNDLE_END' || event.code === 'ERROR') void event.result?.close()
  })
  return watching(counter, () => watcher.close())
}

function watching(counter: Counter, close: () => Promise<void>): Watching {
  return {
    get builds() {
      return counter.builds
    },
    get failures() {
      return counter.failures
    },
    get lastError() {
      return counter.lastError
    },
    get triggers() {
      return counter.triggers
    },
    close,
  }
}

type WebpackLikeWatcher = { close(callback: () => void): void }
type WatchRunFiles = { modifiedFiles?: ReadonlySet<string>; removedFiles?: ReadonlySet<string> }
type WebpackLikeCompiler = {
  hooks: { watchRun: { tap(name: string, hook: (compiler: WatchRunFiles) => void): void } }
  watch(
    options: { aggregateTimeout: number },
    handler: (error: Error | null, stats?: { hasErrors(): boolean; toString(options: string): string }) => void,
  ): WebpackLikeWatcher
  close(callback: () => void): void
}

function countWebpackLike(compiler: WebpackLikeCompiler, counter: Counter): Watching {
  compiler.hooks.watchRun.tap('count-builds', ({ modifiedFiles, removedFiles }) => {
    const changed = [...(modifiedFiles ?? []), ...[...(removedFiles ?? [])].map((file) => `${file} (removed)`)]
    if (changed.length > 0) counter.triggers.push(changed.join(', '))
  })
  const watcher = compiler.watch({ aggregateTimeout: 50 }, (error, stats) => {
    if (error) counter.done(error)
    else if (stats?.hasErrors()) counter.done(stats.toString('errors-only'))
    else counter.done()
  })
  // Closing the watch does not close the compiler (webpack-cli closes both): its shutdown hook is where
  // plugins end their services, ours its esbuild service and its entry folder in the temp folder.
  return watching(counter, () => new Promise<void>((resolve) => watcher.close(() => compiler.close(() => resolve()))))
}

/** Starts the bundler in watch mode on the project with the plugin. */
export async function startWatch(bundler: BundlerName, spec: BuildSpec): Promise<Watching> {
  const counter = new Counter()
  const entry = join(spec.root, spec.entry ?? 'src/main.js')
  switch (bundler) {
    case 'rollup':
      return countRollupLike(
        rollupWatch({
          input: entry,
          plugins: [oacRollup({ root: spec.root, ...spec.options })],
          output: { dir: spec.outDir, format: 'es', entryFileNames: APP_BUNDLE },
          onwarn: () => {},
        }),
        counter,
      )
    case 'rolldown':
      return countRollupLike(
        rolldownWatch({
          input: entry,
          cwd: spec.root,
          logLevel: 'silent',
          plugins: [oacRolldown(spec.options)],
          output: { dir: spec.outDir, format: 'es', entryFileNames: APP_BUNDLE },
        }),
        counter,
      )
    case 'vite': {
      const watcher = await viteBuild({
        root: spec.root,
        configFile: false,
        logLevel: 'silent',
        plugins: [oacVite(spec.options)],
        build: { watch: {}, outDir: spec.outDir, minify: false, lib: { entry, formats: ['es'], fileName: () => APP_BUNDLE } },
      })
      return countRollupLike(watcher as unknown as RollupLikeWatcher, counter)
    }
    case 'esbuild': {
      const context = await esbuild.context({
        absWorkingDir: spec.root,
        entryPoints: [entry],
        bundle: true,
        format: 'esm',
        outdir: spec.outDir,
        entryNames: APP_BUNDLE.replace(/\.js$/, ''),
        logLevel: 'silent',
        plugins: [
          oacEsbuild(spec.options),
          {
            name: 'count-builds',
            setup(build) {
              build.onEnd((result) => counter.done(result.errors.length > 0 ? result.errors.map((e) => e.text).join('\n') : undefined))
            },
          },
        ],
      })
      await context.watch()
      return watching(counter, () => context.dispose())
    }
    case 'webpack':
    case 'rspack':
      await foldersOlderThanWatchpackAccuracy(spec.root)
      return countWebpackLike(webpackLikeCompiler(bundler, spec), counter)
  }
}

/** A webpack or Rspack compiler for the project with the plugin, not started. */
export function webpackLikeCompiler(bundler: 'webpack' | 'rspack', spec: BuildSpec): WebpackLikeCompiler {
  const entry = join(spec.root, spec.entry ?? 'src/main.js')
  const common = { context: spec.root, mode: 'development' as const, devtool: false as const, entry }
  return bundler === 'webpack'
    ? (webpack({
        ...common,
        output: { path: spec.outDir, filename: APP_BUNDLE, library: { type: 'module' } },
        experiments: { outputModule: true },
        plugins: [oacWebpack(spec.options)],
      }) as unknown as WebpackLikeCompiler)
    : (rspack({
        ...common,
        output: { path: spec.outDir, filename: APP_BUNDLE, module: true, library: { type: 'module' } },
        plugins: [oacRspack(spec.options)],
      }) as unknown as WebpackLikeCompiler)
}

/** Polls until `check` passes, failing with `what` after `timeoutMs` (a bound, not a timing assertion). */
/**
 * True while a child process keeps this process alive: our esbuild service, whose open contexts hold it
 * (the files that ask start no other child process).
 */
export function serviceHeld(): boolean {
  return process.getActiveResourcesInfo().includes('ProcessWrap')
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Lets a watcher go quiet, so any build an event would trigger has started and ended by the time it returns. */
export function settle(ms = 2000): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Dates the copied project's files and folders a minute back (its node_modules link itself, not what it
 * points to). Watchers treat entries modified just before they start as possibly changed (webpack's and
 * rspack's watchpack allows for coarse file-system clocks) and rebuild once, which is not our doing.
 */
export async function backdate(dir: string): Promise<void> {
  const past = new Date(Date.now() - 60_000)
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isSymbolicLink()) {
      await lutimes(path, past, past)
      continue
    }
    if (entry.isDirectory()) await backdate(path)
    await utimes(path, past, past)
  }
}

/** The accuracy watchpack assumes before it has seen a finer file time (its FS_ACCURACY starts there). */
const WATCHPACK_COARSEST_ACCURACY_MS = 2000

/**
 * Waits until every folder of the project, and those above it, was created more than watchpack's coarsest
 * accuracy ago. watchpack (webpack's watcher, and the copy rspack bundles) dates a folder by its birthtime,
 * which unlike mtime cannot be set: on the first scan of a watched folder, a subfolder gets
 * `safeTime = min(now, birthtime) + FS_ACCURACY` and is reported changed when that is not before the
 * build's start (DirectoryWatcher's setDirectory and Watcher.checkStartTime). A copy made just before the
 * watch would so rebuild once at start. A wait for a clock bound, not for an event: no build is counted in it.
 */
async function foldersOlderThanWatchpackAccuracy(root: string): Promise<void> {
  let newest = await newestFolderBirth(root)
  for (let dir = dirname(root); dirname(dir) !== dir; dir = dirname(dir)) newest = Math.max(newest, (await lstat(dir)).birthtimeMs)
  const after = newest + WATCHPACK_COARSEST_ACCURACY_MS
  while (Date.now() <= after) await new Promise((resolve) => setTimeout(resolve, after + 1 - Date.now()))
}

async function newestFolderBirth(dir: string): Promise<number> {
  let newest = (await lstat(dir)).birthtimeMs
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) newest = Math.max(newest, await newestFolderBirth(join(dir, entry.name)))
  }
  return newest
}
