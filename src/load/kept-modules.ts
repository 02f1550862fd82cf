import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Metafile, OnLoadResult } from 'esbuild'
import { debugRebuild } from '../debug.js'
import { FileVersion } from '../file-stamps.js'
import { ownModule } from '../package-paths.js'
import { onlyRunBodiesDiffer } from './run-edits.js'

/** Where the bundle of a load that keeps its modules exports the registry module's namespace and the module table. */
export const REGISTRY_EXPORT = 'registry'
export const TABLE_EXPORT = 'modules'

/** The module table every kept module registers in (module-table.ts), bundled into each registry bundle. */
export const MODULE_TABLE = ownModule('load/module-table')

// A module that may be CommonJS keeps its format: the registration's `import` would make it an ES module.
const ES_MODULE_SYNTAX = /^\s*(?:import|export)\b/m
const COMMONJS_SYNTAX = /\bmodule\.exports\b|\bexports\.[A-Za-z_$]|\brequire\s*\(|^\s*export\s*=/m

function isEsModule(file: string, source: string): boolean {
  if (/\.m[jt]s$/.test(file)) return true
  if (/\.c[jt]s$/.test(file)) return false
  return ES_MODULE_SYNTAX.test(source) && !COMMONJS_SYNTAX.test(source)
}

/** A module evaluated by an earlier load, whose instance a rebuild hands to its importers. */
interface KeptModule {
  /** The URL of the bundle whose module table holds the module's namespace. */
  bundleUrl: string
  exports: string[]
  /** The stub a rebuild loads in the module's place (made when first needed). */
  stub?: OnLoadResult
}

/** What one build of the registry read. */
export interface BuildReads {
  /** Each local file the build read (not as a stub), as the version read (undefined: changed while it was read). */
  versions: Map<string, FileVersion | undefined>
  /** Files given as stubs of their kept instances. */
  stubbed: Set<string>
  /** The source text of each module read whole (not JSON, say). */
  sources: Map<string, string>
}

/**
 * The registry's modules as evaluated by the loads of one watch session, so that a rebuild runs only
 * the modules an edit can change: the edited files and every module that imports them, directly or
 * not. Each other module is bundled as a stub that hands out the instance an earlier bundle made
 * (found in that bundle's module table, which Node keeps with the bundle since it was imported), so
 * an edit inside one tool of a thousand runs that tool's module and the registry module, and the
 * other tools keep their definitions, the very same objects (compile's caches key on them).
 *
 * Each local ES module gets a registration at its end (`footer`): an import of its own namespace,
 * put in the bundle's module table. A module that may be CommonJS gets none and runs on every build.
 */
export class KeptModules {
  private readonly kept = new Map<string, KeptModule>()
  /** The version of each local module's source that the kept instances were made from. */
  private readonly evaluated = new Map<string, FileVersion | undefined>()
  /** Each kept module's source as evaluated, or as edited since only inside its tools' `run` bodies. */
  private readonly sources = new Map<string, string>()
  /** Each local module's local imports, absolute. */
  private readonly imports = new Map<string, string[]>()
  /** The bundle files holding kept instances, by URL: Node resolves a bundle's file again each time a stub imports it. */
  private readonly bundleFiles = new Map<string, string>()

  /** The registration appended to a local module's source; empty for one that may be CommonJS. */
  footer(file: string, source: string): string {
    if (!isEsModule(file, source)) return ''
    const path = JSON.stringify(file)
    return `\n;import * as __oac_module from ${path};import { registerModule as __oac_register } from ${JSON.stringify(MODULE_TABLE)};__oac_register(${path}, __oac_module);\n`
  }

  /**
   * What the next build needs: nothing when no module changed since the last load (or changed only
   * inside its tools' `run` bodies: see keptThroughRunEdit), else the modules it may give as stubs:
   * every kept one whose source is the version it was made from and that imports no changed module,
   * directly or not.
   */
  plan(): { unchanged: true } | { unchanged: false; stubs: Set<string> } {
    const changed = [...this.imports.keys()].filter((file) => !this.evaluated.get(file)?.holds(file))
    if (this.imports.size > 0 && changed.every((file) => this.keptThroughRunEdit(file))) return { unchanged: true }
    const importers = new Map<string, string[]>()
    for (const [file, imported] of this.imports) {
      for (const target of imported) {
        const list = importers.get(target)
        if (list) list.push(file)
        else importers.set(target, [file])
      }
    }
    const stale = new Set(changed)
    for (const file of stale) for (const importer of importers.get(file) ?? []) stale.add(importer)
    const stubs = new Set([...this.kept.keys()].filter((file) => !stale.has(file)))
    if (this.imports.size > 0) debugRebuild('registry: %s changed; %d of its %d modules run again', changed.join(', '), this.imports.size - stubs.size, this.imports.size)
    return { unchanged: false, stubs }
  }

  /**
   * True when a kept module changed only inside its tools' `run` bodies (onlyRunBodiesDiffer): its
   * instance then still holds the definitions the new text makes, so it is kept, as the version now
   * on disk. Only the scripts of those tools are built again (the bundle stage reads the source).
   */
  private keptThroughRunEdit(file: string): boolean {
    const before = this.sources.get(file)
    if (before === undefined || !this.kept.has(file)) return false
    const readAt = Date.now()
    let after: string
    try {
      after = readFileSync(file, 'utf8')
    } catch {
      return false
    }
    // The version of the very text read: none when the file changed meanwhile.
    const version = FileVersion.ofRead(file, readAt, after)
    if (!version || !onlyRunBodiesDiffer(file, before, after)) return false
    debugRebuild('registry: %s changed only inside a tool’s run body; its definitions are kept', file)
    this.evaluated.set(file, version)
    this.sources.set(file, after)
    return true
  }

  /** The source of the stub of a kept module: its exports, taken from the instance in its bundle's module table. */
  stub(file: string): OnLoadResult {
    const module = this.kept.get(file)!
    module.stub ??= {
      contents: [
        `import { ${TABLE_EXPORT} } from ${JSON.stringify(module.bundleUrl)}`,
        `const { ${module.exports.map((name, i) => `${JSON.stringify(name)}: __oac_${i}`).join(', ')} } = ${TABLE_EXPORT}.get(${JSON.stringify(file)})`,
        `export { ${module.exports.map((name, i) => `__oac_${i} as ${JSON.stringify(name)}`).join(', ')} }`,
        '',
      ].join('\n'),
      loader: 'js',
    }
    return module.stub
  }

  /**
   * After a bundle was imported: the instances of its modules are kept (its module table holds those
   * that registered), and each module it read whole takes its imports from the build's metafile
   * (whose paths `root` anchors); a stubbed module keeps what it had. Bundle files no kept instance
   * lives in any more are removed.
   */
  async imported(bundle: { url: string; file: string }, table: ReadonlyMap<string, Record<string, unknown>>, reads: BuildReads, metafile: Metafile, root: string, entry: string): Promise<void> {
    this.bundleFiles.set(bundle.url, bundle.file)
    const inputs = new Map(Object.entries(metafile.inputs).map(([input, { imports }]) => [resolve(root, input), imports]))
    for (const [file, version] of reads.versions) {
      const imported = (inputs.get(file) ?? []).filter((record) => !record.external).map((record) => resolve(root, record.path))
      this.imports.set(file, imported.filter((target) => target !== file && target !== MODULE_TABLE && (reads.versions.has(target) || reads.stubbed.has(target))))
      this.evaluated.set(file, version)
      const source = reads.sources.get(file)
      if (source !== undefined && version) this.sources.set(file, source)
      else this.sources.delete(file)
      const namespace = table.get(file)
      if (namespace && version) this.kept.set(file, { bundleUrl: bundle.url, exports: Object.keys(namespace) })
      else this.kept.delete(file)
    }
    this.forgetUnreachable(entry)
    await this.removeUnusedBundles(bundle.url)
  }

  /** Everything kept is dropped, and the bundle files removed. */
  async clear(): Promise<void> {
    this.kept.clear()
    this.evaluated.clear()
    this.sources.clear()
    this.imports.clear()
    await this.removeUnusedBundles(undefined)
  }

  /** The local files the registry module reaches, itself included. */
  reachable(entry: string): Set<string> {
    const seen = new Set([entry])
    for (const file of seen) for (const imported of this.imports.get(file) ?? []) seen.add(imported)
    return seen
  }

  private forgetUnreachable(entry: string): void {
    const reached = this.reachable(entry)
    for (const file of [...this.imports.keys()]) {
      if (reached.has(file)) continue
      this.imports.delete(file)
      this.evaluated.delete(file)
      this.sources.delete(file)
      this.kept.delete(file)
    }
  }

  private async removeUnusedBundles(current: string | undefined): Promise<void> {
    const used = new Set([...this.kept.values()].map((module) => module.bundleUrl))
    for (const [url, file] of this.bundleFiles) {
      if (used.has(url) || url === current) continue
      this.bundleFiles.delete(url)
      await rm(file, { force: true })
    }
  }
}
