import { readFile } from 'node:fs/promises'
import type { SourceMapPayload } from 'node:module'
import { dirname, extname, isAbsolute, join, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  type BuildContext,
  type BuildFailure,
  context as createContext,
  type Loader,
  type Location,
  type Message,
  type OnLoadResult,
  type OnResolveArgs,
  type OnResolveResult,
  type Plugin,
} from 'esbuild'
import type { Diagnostic } from '../diagnostics.js'
import { FileVersion } from '../file-stamps.js'
import { ownModule } from '../package-paths.js'

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

function loaderFor(file: string): Loader {
  const extension = extname(file)
  if (extension === '.tsx') return 'tsx'
  if (extension === '.jsx') return 'jsx'
  return extension.endsWith('ts') ? 'ts' : 'js'
}

/**
 * Gives each source file its own `import.meta` values (a header of constants that IMPORT_META's
 * defines point at). A load result is kept while the file is the version read: esbuild calls onLoad for
 * every file on every rebuild, and reading 1,000 unchanged files was a third of a rebuild's time.
 */
function importMetaHeaders(): Plugin {
  const loaded = new Map<string, { version: FileVersion; result: OnLoadResult }>()
  return {
    name: 'oac-import-meta',
    setup(build) {
      build.onLoad({ filter: SOURCE_FILE }, async (args) => {
        const known = loaded.get(args.path)
        if (known?.version.holds(args.path)) return known.result
        const readAt = Date.now()
        const contents = await readFile(args.path, 'utf8')
        // Prepended on the first line, so every later line keeps its number in the source map.
        const header =
          `const ${IMPORT_META['import.meta.url']} = ${JSON.stringify(pathToFileURL(args.path).href)};` +
          `const ${IMPORT_META['import.meta.filename']} = ${JSON.stringify(args.path)};` +
          `const ${IMPORT_META['import.meta.dirname']} = ${JSON.stringify(dirname(args.path))};`
        const result: OnLoadResult = { contents: header + contents, loader: loaderFor(args.path) }
        const version = FileVersion.take(args.path, readAt)
        if (version) loaded.set(args.path, { version, result })
        else loaded.delete(args.path)
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

/**
 * Bundles the registry module and every local file it imports into one ES module. Installed packages
 * stay external (they resolve from the project at import time); `unplugin-oac` is bundled in from here.
 * The esbuild context is kept between calls for the same entry, so a watch rebuild re-parses only
 * the files that changed.
 */
export class RegistryBundler {
  private cached: { key: string; context: BuildContext<{ write: false; metafile: true; outfile: string }> } | undefined
  private queue: Promise<unknown> = Promise.resolve()

  /** Bundles run one at a time: they share the context. */
  bundle(entry: string, root: string): Promise<RegistryBundle | Diagnostic[]> {
    const run = this.queue.then(() => this.bundleNow(entry, root))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async bundleNow(entry: string, root: string): Promise<RegistryBundle | Diagnostic[]> {
    try {
      const result = await (await this.contextFor(entry, root)).rebuild()
      const ownFolder = dirname(ownModule('index')) + sep
      const inputs = Object.keys(result.metafile.inputs)
        .map((input) => resolve(root, input))
        .filter((file) => !file.includes(`${sep}node_modules${sep}`) && !file.startsWith(ownFolder))
      const output = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))!.text
      const sourceMap = JSON.parse(output('.mjs.map')) as SourceMapPayload
      return { code: output('.mjs'), sourceMap, inputs }
    } catch (error) {
      if (isBuildFailure(error)) return error.errors.map(buildDiagnostic)
      throw error
    }
  }

  async dispose(): Promise<void> {
    await this.queue
    const cached = this.cached
    this.cached = undefined
    await cached?.context.dispose()
  }

  private async contextFor(entry: string, root: string) {
    const key = `${root}\0${entry}`
    if (this.cached?.key === key) return this.cached.context
    await this.cached?.context.dispose()
    this.cached = undefined
    const context = await createContext({
      entryPoints: [entry],
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
      plugins: [importMetaHeaders(), externalPackages()],
    })
    this.cached = { key, context }
    return context
  }
}
