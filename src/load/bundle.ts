import { mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import type { SourceMapPayload } from 'node:module'
import { dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  type BuildContext,
  type BuildFailure,
  context as createContext,
  type Location,
  type Message,
  type Metafile,
  type OnLoadResult,
  type OnResolveArgs,
  type OnResolveResult,
  type Plugin,
} from 'esbuild'
import type { Diagnostic } from '../diagnostics.js'
import { FileVersion } from '../file-stamps.js'
import { ownModule } from '../package-paths.js'
import { sourceLoader } from '../source-loader.js'
import { processAlive } from '../process-alive.js'
import { type BuildReads, KeptModules, MODULE_TABLE, REGISTRY_EXPORT, TABLE_EXPORT } from './kept-modules.js'

export interface RegistryBundle {
  /** The bundled ES module. */
  code: string
  /** Its source map, which maps stack frames back to the user's files; sources are relative to the root. */
  sourceMap: SourceMapPayload
  /** Absolute paths of the user's files that went into the bundle. */
  inputs: string[]
}

// Each module's own `import.meta` values, so code that finds files next to itself still works once bundled.
const IMPORT_META = {
  'import.meta.url': '__oac_import_meta_url',
  'import.meta.filename': '__oac_import_meta_filename',
  'import.meta.dirname': '__oac_import_meta_dirname',
} as const

const SOURCE_FILE = /\.[cm]?[jt]sx?$/

/** What the header plugin asks of the bundler for the build under way. */
interface LoadHooks {
  /** The stub to load in place of a kept module's source, if it is one. */
  stub(file: string): OnLoadResult | undefined
  /** Text appended to a local module's source (the registration of kept modules). */
  footer(file: string, source: string): string
  /** Told the version and the source of each file loaded whole (version undefined: it changed while it was read). */
  read(file: string, version: FileVersion | undefined, source: string): void
}

/**
 * Gives each source file its own `import.meta` values (a header of constants that IMPORT_META's
 * defines point at). A load result is kept while the file is the version read: esbuild calls onLoad for
 * every file on every rebuild, and reading 1,000 unchanged files was a third of a rebuild's time.
 */
function importMetaHeaders(hooks: LoadHooks): Plugin {
  const loaded = new Map<string, { version: FileVersion; source: string; result: OnLoadResult }>()
  return {
    name: 'oac-import-meta',
    setup(build) {
      build.onLoad({ filter: SOURCE_FILE }, async (args) => {
        if (args.path === MODULE_TABLE) return undefined
        const stub = hooks.stub(args.path)
        if (stub) return stub
        const known = loaded.get(args.path)
        if (known?.version.holds(args.path)) {
          hooks.read(args.path, known.version, known.source)
          return known.result
        }
        const readAt = Date.now()
        const source = await readFile(args.path, 'utf8')
        // Prepended on the first line, so every later line keeps its number in the source map.
        const header =
          `const ${IMPORT_META['import.meta.url']} = ${JSON.stringify(pathToFileURL(args.path).href)};` +
          `const ${IMPORT_META['import.meta.filename']} = ${JSON.stringify(args.path)};` +
          `const ${IMPORT_META['import.meta.dirname']} = ${JSON.stringify(dirname(args.path))};`
        const result: OnLoadResult = { contents: header + source + hooks.footer(args.path, source), loader: sourceLoader(args.path) }
        const version = FileVersion.ofRead(args.path, readAt, source)
        if (version) loaded.set(args.path, { version, source, result })
        else loaded.delete(args.path)
        hooks.read(args.path, version, source)
        return result
      })
    },
  }
}

const INSIDE_NODE_MODULES = /(^|[\\/])node_modules[\\/]/
const RESOLVING = Symbol('oac-resolving')

/**
 * Bare imports that resolve into node_modules stay external: they are imported from the project at
 * run time, as its own code would import them. A workspace package linked into node_modules from the
 * monorepo (its real path lies outside node_modules, often as TypeScript sources) is bundled instead,
 * because Node could not import its sources.
 *
 * Answers are kept for the build: a registry of 1,000 tools imports `zod` 1,000 times from one
 * folder, and each `build.resolve` is a round trip to esbuild (1.7 s of a 2 s bundle before this cache).
 */
function externalPackages(): Plugin {
  const answers = new Map<string, Promise<OnResolveResult | undefined>>()
  return {
    name: 'oac-external-packages',
    setup(build) {
      // A rebuild may follow an install or a new workspace link: it asks again.
      build.onStart(() => answers.clear())
      const decide = async (args: OnResolveArgs): Promise<OnResolveResult | undefined> => {
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: RESOLVING,
        })
        // Unresolvable: let esbuild's own resolver report it with the importer's location.
        if (resolved.errors.length > 0) return undefined
        if (resolved.external || INSIDE_NODE_MODULES.test(resolved.path)) return { path: args.path, external: true }
        return { path: resolved.path }
      }
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        // Windows paths (`C:\\...`, from the alias of `unplugin-oac`) are no packages.
        if (args.pluginData === RESOLVING || isAbsolute(args.path)) return undefined
        // The answer depends on the folder resolved from and the kind (import and require may pick different files).
        const key = `${args.resolveDir}\0${args.kind}\0${args.path}`
        let answer = answers.get(key)
        if (!answer) answers.set(key, (answer = decide(args)))
        return answer
      })
    },
  }
}

function isBuildFailure(error: unknown): error is BuildFailure {
  return error instanceof Error && Array.isArray((error as Partial<BuildFailure>).errors)
}

function buildDiagnostic(message: Message): Diagnostic {
  const location = userLocation(message)
  const unresolved = message.text.startsWith('Could not resolve')
  return {
    severity: 'error',
    code: 'registry-build-failed',
    message: message.text + message.notes.map((note) => `\n  ${note.text}`).join(''),
    fix: unresolved
      ? 'Fix the import path, or install the package in the project.'
      : 'Fix the code at this location so that it compiles.',
    ...(location && { file: location.file, line: location.line, column: location.column + 1 }),
  }
}

/** The user's line the message is about: a plugin's error points into esbuild, its note at the import. */
function userLocation(message: Message): Location | null {
  const inPackage = (location: Location | null) => !location || /(^|[\\/])node_modules[\\/]/.test(location.file)
  if (!inPackage(message.location)) return message.location
  return message.notes.find((note) => !inPackage(note.location))?.location ?? null
}

/** The namespace of the entry of a bundle that keeps its modules. */
const ENTRY_NAMESPACE = 'oac-registry-entry'

/**
 * The entry of a bundle that keeps its modules: it exports the registry module's namespace and the
 * bundle's module table. Stubs import the bundles that hold their modules (as `file:` URLs), which
 * stay external: Node has them loaded already.
 */
function keptModulesEntry(): Plugin {
  return {
    name: 'oac-registry-entry',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY_NAMESPACE}:`) }, (args) =>
        args.kind === 'entry-point' ? { path: args.path.slice(ENTRY_NAMESPACE.length + 1), namespace: ENTRY_NAMESPACE } : undefined,
      )
      build.onLoad({ filter: /.*/, namespace: ENTRY_NAMESPACE }, (args) => ({
        contents: `export * as ${REGISTRY_EXPORT} from ${JSON.stringify(args.path)}\nexport { ${TABLE_EXPORT} } from ${JSON.stringify(MODULE_TABLE)}\n`,
        loader: 'js',
        resolveDir: dirname(args.path),
      }))
      build.onResolve({ filter: /^file:/ }, (args) => ({ path: args.path, external: true }))
    },
  }
}

/** A registry bundle imported: the registry module's namespace, or the error its import threw. */
export type RegistryLoad = { bundle: RegistryBundle; bundleFiles: string[] } & ({ namespace: Record<string, unknown> } | { error: unknown })

type Context = BuildContext<{ write: false; metafile: true; outfile: string }>

let loadCount = 0

/** Bundle files this process wrote and could not remove (it was killed): removed by a later process. */
async function removeDeadProcessBundles(folder: string): Promise<void> {
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const pid = /^registry-(\d+)-.*\.mjs$/.exec(name)?.[1]
    if (pid && !processAlive(Number(pid))) await rm(join(folder, name), { force: true })
  }
}

/**
 * Bundles the registry module and every local file it imports into one ES module, and imports it.
 * Installed packages stay external (they resolve from the project at import time); `unplugin-oac` is
 * bundled in from here. The esbuild context is kept between calls for the same entry, so a watch
 * rebuild re-parses only the files that changed.
 *
 * With `keepModules` (a watch session) the modules' instances are kept too (see KeptModules): a
 * rebuild runs only the modules an edit can change, and one with no change runs nothing.
 */
export class RegistryBundler {
  private readonly kept: KeptModules | undefined
  private cached: { key: string; context: Context } | undefined
  private queue: Promise<unknown> = Promise.resolve()
  /** The last load that imported: given again while no module changed. */
  private last: RegistryLoad | undefined
  /** The build under way: the kept modules it gives as stubs, and what it read. */
  private stubs: ReadonlySet<string> = new Set()
  private reads: BuildReads = { versions: new Map(), stubbed: new Set(), sources: new Map() }
  private swept = false

  constructor(options: { keepModules?: boolean } = {}) {
    this.kept = options.keepModules ? new KeptModules() : undefined
  }

  /**
   * Bundles the registry module `entry` and imports the bundle from `cacheFolder` (so its bare imports
   * resolve from the project). Loads run one at a time: they share the context and the kept modules.
   */
  load(entry: string, root: string, cacheFolder: string): Promise<RegistryLoad | Diagnostic[]> {
    const run = this.queue.then(() => this.loadNow(entry, root, cacheFolder))
    this.queue = run.catch(() => undefined)
    return run
  }

  async dispose(): Promise<void> {
    await this.queue
    const cached = this.cached
    this.cached = undefined
    this.last = undefined
    await this.kept?.clear()
    await cached?.context.dispose()
  }

  private async loadNow(entry: string, root: string, cacheFolder: string): Promise<RegistryLoad | Diagnostic[]> {
    const context = await this.contextFor(entry, root)
    const plan = this.kept?.plan()
    if (plan?.unchanged && this.last && 'namespace' in this.last) return this.last
    let stubs = plan && !plan.unchanged ? plan.stubs : new Set<string>()
    let built = await this.build(context, root, stubs)
    // A build that fails with stubs in it is made again without them: its messages are then about the files themselves.
    if (Array.isArray(built) && stubs.size > 0) built = await this.build(context, root, (stubs = new Set()))
    if (Array.isArray(built)) return built
    const { bundle, metafile } = built

    await mkdir(cacheFolder, { recursive: true })
    if (!this.swept) {
      this.swept = true
      await removeDeadProcessBundles(cacheFolder)
    }
    const name = `registry-${process.pid}-${Date.now()}-${++loadCount}.mjs`
    // Node keeps a module under its real path (the project's node_modules may be a link): a stub imports it by that.
    const file = join(await realpath(cacheFolder), name)
    const bundleFiles = [...new Set([join(cacheFolder, name), file])]
    await writeFile(file, bundle.code)
    let imported: Record<string, unknown>
    try {
      // Stack traces name the bundle; the loader maps their frames back to the user's files afterwards
      // (Node's own source-map support would do it too, at a high price on every captured stack).
      imported = (await import(pathToFileURL(file).href)) as Record<string, unknown>
    } catch (error) {
      await rm(file, { force: true })
      return { bundle, bundleFiles, error }
    }
    if (!this.kept) {
      await rm(file, { force: true })
      return { bundle, bundleFiles, namespace: imported }
    }
    const table = imported[TABLE_EXPORT] as ReadonlyMap<string, Record<string, unknown>>
    await this.kept.imported({ url: pathToFileURL(file).href, file }, table, this.reads, metafile, root, entry)
    this.last = { bundle: { ...bundle, inputs: this.localInputs(bundle.inputs, entry) }, bundleFiles, namespace: imported[REGISTRY_EXPORT] as Record<string, unknown> }
    return this.last
  }

  /** One build of the registry, giving the modules in `stubs` as stubs of their kept instances. */
  private async build(context: Context, root: string, stubs: ReadonlySet<string>): Promise<{ bundle: RegistryBundle; metafile: Metafile } | Diagnostic[]> {
    this.stubs = stubs
    this.reads = { versions: new Map(), stubbed: new Set(), sources: new Map() }
    const startedAt = Date.now()
    try {
      const result = await context.rebuild()
      const ownFolder = dirname(ownModule('index')) + sep
      const inputs = Object.keys(result.metafile.inputs)
        .filter((input) => !input.startsWith(`${ENTRY_NAMESPACE}:`))
        .map((input) => resolve(root, input))
        .filter((file) => !INSIDE_NODE_MODULES.test(file) && !file.startsWith(ownFolder))
      // Local files esbuild read itself (JSON, say) are versioned here, so an edit of one reloads its importers.
      for (const file of this.kept ? inputs : []) {
        if (!this.reads.versions.has(file) && !this.reads.stubbed.has(file)) this.reads.versions.set(file, FileVersion.take(file, startedAt))
      }
      const output = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))!.text
      const sourceMap = JSON.parse(output('.mjs.map')) as SourceMapPayload
      return { bundle: { code: output('.mjs'), sourceMap, inputs: this.localInputs(inputs, undefined) }, metafile: result.metafile }
    } catch (error) {
      if (isBuildFailure(error)) return error.errors.map(buildDiagnostic)
      throw error
    } finally {
      this.stubs = new Set()
    }
  }

  /** The user's files the registry came from: what the build read, and what the stubbed modules were built from. */
  private localInputs(read: readonly string[], entry: string | undefined): string[] {
    const reached = entry === undefined || !this.kept ? [] : [...this.kept.reachable(entry)]
    const ownFolder = dirname(ownModule('index')) + sep
    return [...new Set([...read, ...reached])].filter((file) => !INSIDE_NODE_MODULES.test(file) && !file.startsWith(ownFolder)).sort()
  }

  private async contextFor(entry: string, root: string): Promise<Context> {
    const key = `${root}\0${entry}`
    if (this.cached?.key === key) return this.cached.context
    await this.cached?.context.dispose()
    this.cached = undefined
    this.last = undefined
    await this.kept?.clear()
    const hooks: LoadHooks = {
      stub: (file) => {
        if (!this.stubs.has(file) || !this.kept) return undefined
        this.reads.stubbed.add(file)
        return this.kept.stub(file)
      },
      footer: (file, source) => this.kept?.footer(file, source) ?? '',
      read: (file, version, source) => {
        this.reads.versions.set(file, version)
        this.reads.sources.set(file, source)
      },
    }
    const context = await createContext({
      entryPoints: [this.kept ? `${ENTRY_NAMESPACE}:${entry}` : entry],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      // Never written: it makes the source map's paths relative to the root, which `sourceRoot` anchors.
      outfile: join(root, 'oac-registry.mjs'),
      sourcemap: 'external',
      sourceRoot: pathToFileURL(root).href + '/',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      define: IMPORT_META,
      // The user's definitions are made by this very package's define functions, whether or not
      // the project has it installed.
      alias: { 'unplugin-oac': ownModule('index') },
      plugins: [...(this.kept ? [keptModulesEntry()] : []), importMetaHeaders(hooks), externalPackages()],
    })
    this.cached = { key, context }
    return context
  }
}
