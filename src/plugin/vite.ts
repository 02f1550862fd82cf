import { resolve } from 'node:path'
import type { Plugin, ResolvedConfig } from 'vite'
import { rollupLikeHooks } from './rollup-like.js'
import type { OacSession } from './session.js'

/** Whether Vite is serving (dev) or building, as the virtual module's load needs to know. */
export interface ViteMode {
  serving: boolean
}

/**
 * Vite: the Rollup-like build hooks, shared by every environment of one build (`sharedDuringBuild`),
 * so client + ssr compile once; in dev, the dev server keeps the target current instead.
 */
export function viteHooks(session: OacSession, mode: ViteMode): Partial<Plugin> {
  let outDir: string | undefined
  let stopServing: (() => Promise<void>) | undefined
  const build = rollupLikeHooks(session, () => outDir, { warningsShowNoPlace: true })
  return {
    sharedDuringBuild: true,
    configResolved(config: ResolvedConfig) {
      // Called again for each environment of a build; the first call is the app's own config.
      if (outDir !== undefined) return
      session.useRoot(config.root)
      // The output folder is the client's: with several environments, the app the agent tree sits beside.
      outDir = resolve(config.root, config.environments.client?.build.outDir ?? config.build.outDir)
      mode.serving = config.command === 'serve'
    },
    async configureServer(server) {
      // Imported here: the dev server writes through the pipeline, which a build the cache serves never loads.
      const { serveAgentTree } = await import('./vite-dev.js')
      stopServing = serveAgentTree(server, session, session.target(outDir))
    },
    async buildStart() {
      if (mode.serving) return
      await build.buildStart.call(this)
    },
    generateBundle: build.generateBundle,
    writeBundle: build.writeBundle,
    async closeBundle() {
      // The dev server's close calls this (once per environment, in watch mode) and never closeWatcher:
      // the update under way finishes writing, and the esbuild service ends, or it keeps the process alive.
      if (mode.serving) await stopServing?.()
      if (!this.meta.watchMode || mode.serving) await session.release()
    },
    async closeWatcher() {
      await session.release()
    },
  }
}
