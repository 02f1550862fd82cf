import type { sources as rspackSources } from '@rspack/core'
import { resolve } from 'node:path'
import { createUnplugin, type UnpluginOptions } from 'unplugin'
import type { sources as webpackSources } from 'webpack'
import { failureText } from './report.js'
import { esbuildSetup } from './esbuild.js'
import { validateOptions, type OacPluginOptions } from './options.js'
import { rollupLikeHooks } from './rollup-like.js'
import { OacSession } from './session.js'
import { viteHooks, type ViteMode } from './vite.js'
import { applyWebpackLike } from './webpack-like.js'
import { FAILED_MANIFEST_MODULE, RESOLVED_VIRTUAL_ID, resolvedVirtualIdFilter, VIRTUAL_ALIAS, virtualIdFilter } from './virtual.js'

type WebpackSource = webpackSources.Source
type RspackSource = rspackSources.Source

export type { OacPluginOptions } from './options.js'
export { OacOptionsError } from './options.js'

/**
 * unplugin-oac: compiles the agent registry during the build and puts the agent tree into the target.
 * All pipeline work is the Compiler's (api.ts) and write/'s; this wires it into each bundler.
 */
export const unpluginOac = createUnplugin<OacPluginOptions, false>((raw, meta) => {
  const options = validateOptions(raw)
  const session = new OacSession(options)
  const vite: ViteMode = { serving: false }

  const plugin: UnpluginOptions = {
    name: 'unplugin-oac',
    enforce: 'pre',
    resolveId: {
      filter: { id: virtualIdFilter },
      handler: () => RESOLVED_VIRTUAL_ID,
    },
    load: {
      filter: { id: resolvedVirtualIdFilter },
      async handler() {
        let result
        try {
          // The dev server may ask before its watcher has seen an edit, so it checks the sources itself.
          result = vite.serving ? await session.refresh() : await session.latest()
        } catch (error) {
          if (!session.wasReported(error)) throw new Error(`unplugin-oac: the agent registry does not compile, so virtual:oac has no manifest:\n${failureText(error)}`)
          // The build's start already failed the build with these diagnostics (the dev server has no such
          // start); this stand-in adds no second error, and is loaded again once a watched file changes.
          result = { manifestModule: FAILED_MANIFEST_MODULE }
        }
        if (!vite.serving) for (const file of session.watchPlan([], []).files) this.addWatchFile(file)
        return result.manifestModule
      },
    },
    // Exact filters keep esbuild from calling into JS for every other module (3x slower otherwise).
    esbuild: { onResolveFilter: virtualIdFilter, onLoadFilter: resolvedVirtualIdFilter },
  }

  switch (meta.framework) {
    case 'esbuild':
      plugin.esbuild = { ...plugin.esbuild, setup: esbuildSetup(session) }
      break
    case 'vite':
      plugin.vite = viteHooks(session, vite)
      break
    case 'rollup':
      plugin.rollup = { ...rollupLikeHooks(session), ...closeHooks(session) }
      break
    case 'rolldown':
      plugin.rolldown = {
        // Rolldown has a project folder of its own (`cwd`); Rollup only has process.cwd().
        options(inputOptions) {
          if (inputOptions.cwd) session.useRoot(inputOptions.cwd)
        },
        ...rollupLikeHooks(session),
        ...closeHooks(session),
      }
      break
    case 'webpack':
      // unplugin's webpack adapter keeps virtual modules as fake files named `<context>/_virtual_<id>`.
      plugin.webpack = (compiler) => {
        // webpack reads `virtual:` as a URL scheme and never asks plugins to resolve it; renaming the request
        // before resolution (beforeResolve) lets `virtual:oac` work there too, next to `~oac`.
        new compiler.webpack.NormalModuleReplacementPlugin(/^virtual:oac$/, VIRTUAL_ALIAS).apply(compiler)
        applyWebpackLike<WebpackSource>(session, compiler, resolve(compiler.options.context ?? process.cwd(), '_virtual_'))
      }
      break
    case 'rspack':
      plugin.rspack = (compiler) => applyWebpackLike<RspackSource>(session, compiler)
      break
  }
  return plugin
})

/** Ends the Compiler's esbuild service once the bundler is done (after each build unless it is watching). */
function closeHooks(session: OacSession) {
  return {
    async closeBundle(this: { meta: { watchMode: boolean } }) {
      if (!this.meta.watchMode) await session.release()
    },
    async closeWatcher() {
      await session.release()
    },
  }
}
