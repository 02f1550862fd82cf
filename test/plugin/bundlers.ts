import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { rspack } from '@rspack/core'
import * as esbuild from 'esbuild'
import { rolldown } from 'rolldown'
import { rollup } from 'rollup'
import { build as viteBuild } from 'vite'
import webpack from 'webpack'
import oacEsbuild from '../../src/esbuild.js'
import type { OacPluginOptions } from '../../src/plugin/index.js'
import oacRolldown from '../../src/rolldown.js'
import oacRollup from '../../src/rollup.js'
import oacRspack from '../../src/rspack.js'
import oacVite from '../../src/vite.js'
import oacWebpack from '../../src/webpack.js'

export const BUNDLERS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const
export type BundlerName = (typeof BUNDLERS)[number]

export interface BuildSpec {
  /** The project folder (the bundler's cwd / root / context). */
  root: string
  /** The bundle's output folder, absolute. */
  outDir: string
  options: OacPluginOptions
  /** The app entry, relative to root (default src/main.js). */
  entry?: string
}

/** The file name every bundler gives the app bundle, so trees can leave it out. */
export const APP_BUNDLE = 'main.js'


type WebpackLikeCompiler = {
  run(callback: (error: Error | null, stats?: { hasErrors(): boolean; toString(options: string): string }) => void): void
  close(callback: (error?: Error | null) => void): void
}

async function runWebpackLike(compiler: WebpackLikeCompiler): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      compiler.run((error, stats) => {
        if (error) reject(error)
        else if (stats?.hasErrors()) reject(new Error(stats.toString('errors-only')))
        else resolve()
      })
    })
  } finally {
    await new Promise<void>((resolve) => compiler.close(() => resolve()))
  }
}

/** One production build of the project with the plugin, throwing on any build error. */
export async function buildWith(bundler: BundlerName, spec: BuildSpec): Promise<void> {
  const entry = join(spec.root, spec.entry ?? 'src/main.js')
  switch (bundler) {
    case 'vite':
      await viteBuild({
        root: spec.root,
        configFile: false,
        logLevel: 'silent',
        plugins: [oacVite(spec.options)],
        build: { outDir: spec.outDir, minify: false, lib: { entry, formats: ['es'], fileName: () => APP_BUNDLE } },
      })
      return
    case 'rollup': {
      const bundle = await rollup({ input: entry, plugins: [oacRollup({ root: spec.root, ...spec.options })], onwarn: () => {} })
      try {
        await bundle.write({ dir: spec.outDir, format: 'es', entryFileNames: APP_BUNDLE })
      } finally {
        await bundle.close()
      }
      return
    }
    case 'rolldown': {
      const bundle = await rolldown({ input: entry, cwd: spec.root, plugins: [oacRolldown(spec.options)], logLevel: 'silent' })
      try {
        await bundle.write({ dir: spec.outDir, format: 'es', entryFileNames: APP_BUNDLE })
      } finally {
        await bundle.close()
      }
      return
    }
    case 'esbuild':
      await esbuild.build({
        absWorkingDir: spec.root,
        entryPoints: [entry],
        bundle: true,
        format: 'esm',
        outdir: spec.outDir,
        entryNames: APP_BUNDLE.replace(/\.js$/, ''),
        plugins: [oacEsbuild(spec.options)],
        logLevel: 'silent',
      })
      return
    case 'webpack':
      await runWebpackLike(
        webpack({
          context: spec.root,
          mode: 'production',
          entry,
          output: { path: spec.outDir, filename: APP_BUNDLE, library: { type: 'module' } },
          experiments: { outputModule: true },
          plugins: [oacWebpack(spec.options)],
        }) as unknown as WebpackLikeCompiler,
      )
      return
    case 'rspack':
      await runWebpackLike(
        rspack({
          context: spec.root,
          mode: 'production',
          entry,
          output: { path: spec.outDir, filename: APP_BUNDLE, module: true, library: { type: 'module' } },
          plugins: [oacRspack(spec.options)],
        }) as unknown as WebpackLikeCompiler,
      )
      return
  }
}

function ignoreVanished(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined
  throw error
}

/** Every file under `dir` (relative POSIX path -> content), leaving out the given names. */
export async function readTree(dir: string, leaveOut: (path: string) => boolean = () => false): Promise<Map<string, string>> {
  const tree = new Map<string, string>()
  async function walk(folder: string): Promise<void> {
    const entries = await readdir(folder, { withFileTypes: true }).catch(ignoreVanished)
    for (const entry of entries ?? []) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) await walk(path)
      else {
        const rel = relative(dir, path).split(sep).join('/')
        // A watch build may remove a file (a lock, a renamed chunk) between the listing and the read.
        const content = leaveOut(rel) ? undefined : await readFile(path, 'utf8').catch(ignoreVanished)
        if (content !== undefined) tree.set(rel, content)
      }
    }
  }
  await walk(dir)
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}
