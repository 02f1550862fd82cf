import { existsSync, readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path'
import { type BuildOptions, build as esbuild, type Metafile, type OnResolveArgs, type OutputFile, type Plugin, type PluginBuild } from 'esbuild'
import { debugBundle } from '../debug.js'
import { jsString } from '../emit/codegen/escape.js'
import { type OwnModule, ownModule, packageRoot } from '../package-paths.js'
import type { PlannedTool } from '../compile/plan.js'
import { HOOK_RUNTIME_GLOBAL, type RuntimeFiles } from './entries.js'
import { cacheFolderOf, vendorCache } from './vendor-cache.js'

/**
 * The vendor files of a scripts folder: third-party packages and our runtime, each package built
 * once into `vendor/<name>@<version>/`, which tool scripts import instead of holding a copy. A file's
 * name says only which package, version and module it holds, so adding or editing a tool renames
 * nothing, and a package's files change only when its version (or the set of its modules some tool
 * imports) does.
 */

/** The folder of the vendor files, inside the scripts folder. */
export const VENDOR_FOLDER = 'vendor'

/** Gives bundled CommonJS dependencies a `require` for node built-ins (ESM output has none). No
 * import, so nothing can clash with a bundled module's own imports, and no ES facade of node:module
 * to build (see runtime/start.ts); esbuild already renames bundled top-level `require` bindings,
 * which it treats as reserved. */
export const REQUIRE_BANNER = "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);"

/**
 * What every vendor file's build shares: one bundle for Node 20, in memory, with its inputs listed.
 * Minified: nobody reviews a vendor file line by line, and whitespace minification also drops
 * esbuild's `// path` comments, which would name where the package is installed.
 */
const VENDOR_BUILD = { write: false, bundle: true, platform: 'node', target: 'node20', minifyWhitespace: true, minifySyntax: true, metafile: true, logLevel: 'silent' } satisfies BuildOptions

/** The group of the MCP server's build in the vendorCache. */
const SERVER_GROUP = 'mcp-server'

/** The group of the MCP bridge's build in the vendorCache. */
const BRIDGE_GROUP = 'mcp-bridge'

/** The groups of the texts hook scripts carry in themselves (Vendor.hookRuntime, Vendor.ownIndex) in the vendorCache. */
const HOOK_RUNTIME_GROUP = 'hook-runtime'
const OWN_INDEX_GROUP = 'own-index'

/** The SDK's server module, and the namespace of the module served in place of its ajv validator. */
const SDK_SERVER_MODULE = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/
/** The SDK's client module, whose ajv validator the bridge swaps for its own. */
const SDK_CLIENT_MODULE = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]client[\\/]index\.js$/
const VALIDATOR_NAMESPACE = 'oac-sdk-validator'

/** Marks the resolve calls the vendor plugin makes itself, so it does not answer them again. */
const RESOLVING = Symbol('oac-vendor-resolving')

interface PackageInfo {
  name: string
  version: string
  /** The package's folder (real path). */
  dir: string
}

/** What the vendor files of a plan depend on besides the packages its tools import. */
export interface VendorOptions {
  withServer: boolean
  /** The plan has MCP servers someone else wrote for a harness bridged to them (`scripts/mcp_bridge.cjs`). */
  withBridge: boolean
  schemaPackages: ReadonlySet<SchemaPackage>
  /** The plan has hooks: what their scripts carry in themselves is built too (hookRuntime, ownIndex). */
  withHooks: boolean
}

/** One esbuild build of vendor files: a package's modules, or one of ours. */
interface VendorBuild {
  group: string
  pkg: PackageInfo
  /** By the module's file. */
  modules: Map<string, VendorModule>
}

function addModule(builds: Map<string, VendorBuild>, module: VendorModule, group: string): void {
  let build = builds.get(group)
  if (!build) builds.set(group, (build = { group, pkg: module.pkg, modules: new Map() }))
  build.modules.set(module.file, module)
}

/** One module of a package, as a vendor file. */
export interface VendorModule {
  pkg: PackageInfo
  /** The module's file (absolute). */
  file: string
  /** The vendor file, relative to the scripts folder: `vendor/<name>@<version>/<module path, / as +>.mjs`. */
  path: string
}

/** The vendor files of our own runtime, whatever the tools. */
const OWN_ENTRIES = { index: 'index', start: 'runtime/start', script: 'runtime/script' } as const

type SchemaPackage = PlannedTool['schemaPackage']

/** The runtime module that checks a tool's input with the package its schema was made with. */
const INPUT_CHECKS: Record<SchemaPackage, 'check-zod' | 'check-typebox' | 'check-sinclair-typebox'> = {
  zod: 'check-zod',
  typebox: 'check-typebox',
  '@sinclair/typebox': 'check-sinclair-typebox',
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function packageFolder(pkg: PackageInfo): string {
  return `${VENDOR_FOLDER}/${pkg.name}@${pkg.version}`
}

/**
 * The vendor file of a package's module (its path inside the package): one folder per package, so
 * that the relative imports esbuild writes are right in every file of it, chunks included.
 */
function vendorFileName(modulePath: string): string {
  return `${modulePath.split(sep).join('/').replace(/\.[cm]?js$/, '').replaceAll('/', '+')}.mjs`
}

/** `from` and `to` relative to the scripts folder: the import specifier `from` uses for `to`. */
function importPath(from: string, to: string): string {
  const path = posix.relative(posix.dirname(from), to)
  return path.startsWith('.') ? path : `./${path}`
}

/** What a build of vendor files gives, as recorded in memory and in the vendorCache. */
interface BuiltFiles {
  files: ScriptFile[]
  /** Modules of other packages its files import, which need vendor files too. */
  needs: VendorModule[]
}

const isInlineText = (value: unknown): value is { text: string } => typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string'

const isBuiltFiles = (value: unknown): value is BuiltFiles =>
  typeof value === 'object' && value !== null && Array.isArray((value as BuiltFiles).files) && Array.isArray((value as BuiltFiles).needs)

/** True for an input of an esbuild build that is a module of a plugin's namespace (`oac-entry:tools/x.mjs`), not a file (a Windows path's drive letter is followed by a separator). */
export const inNamespace = (input: string) => /^[^\\/]+:(?![\\/])/.test(input)

/** The files an esbuild build read, absolute (its metafile's inputs, those in a plugin's namespace left out). */
function inputFiles(metafile: Metafile, base: string): string[] {
  return Object.keys(metafile.inputs)
    .filter((input) => input !== '<stdin>' && !inNamespace(input))
    .map((input) => resolve(base, input))
}

export class Vendor {
  private readonly packages = new Map<string, PackageInfo | undefined>()
  private readonly moduleTypes = new Map<string, boolean>()
  /**
   * Bare imports resolved or being resolved, by resolve folder, specifier and kind. The promise is
   * kept, not its value: a cold build asks for the same import from a thousand modules at once.
   */
  private readonly resolved = new Map<string, Promise<VendorModule | undefined>>()
  /** Each build's last result (a package's, or one of our input checks'): its modules and what it gave. */
  private readonly built = new Map<string, BuiltFiles & { key: string }>()
  private ownPackage: PackageInfo | undefined
  private serverBuild: ScriptFile[] | undefined
  private bridgeBuild: ScriptFile[] | undefined
  /** The one-text builds of our modules (inlineBuild), by group. */
  private readonly inlineTexts = new Map<string, Promise<string>>()

  /** Our package, with the version the runtime files are named by. */
  own(): PackageInfo {
    if (this.ownPackage) return this.ownPackage
    const manifest = readJson(join(packageRoot, 'package.json'))
    const version = typeof manifest?.version === 'string' ? manifest.version : '0.0.0'
    this.ownPackage = { name: 'unplugin-oac', version, dir: packageRoot }
    return this.ownPackage
  }

  runtimeFiles(): RuntimeFiles {
    const folder = packageFolder(this.own())
    const check = Object.fromEntries(Object.entries(INPUT_CHECKS).map(([schemaPackage, name]) => [schemaPackage, `${folder}/${name}.mjs`]))
    return { start: `${folder}/start.mjs`, script: `${folder}/script.mjs`, mcpServer: `${folder}/mcp-server.cjs`, mcpBridge: `${folder}/mcp-bridge.mjs`, mcpBridgeStart: `${folder}/mcp-bridge-start.cjs`, check: check as RuntimeFiles['check'] }
  }

  /**
   * The esbuild plugin of a build whose output is `output` (relative to the scripts folder): every
   * import of an ES module package, and of `unplugin-oac`, stays an import, of the package's vendor
   * file, recorded in `needs` under the specifier the output imports it by. CommonJS packages,
   * `require`d packages and local code (workspace packages too) are bundled. An import for which
   * `forBindingsOnly(importer, specifier)` holds is dropped when its bindings go unused.
   */
  plugin(output: string, needs: Map<string, VendorModule>, forBindingsOnly: (importer: string, specifier: string) => boolean = () => false): Plugin {
    return {
      name: 'oac-vendor',
      setup: (build) => {
        build.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (args.pluginData === RESOLVING || isAbsolute(args.path) || isBuiltin(args.path)) return undefined
          // A `require` of an ES module vendor file would fail on Node 20: what is required is bundled.
          if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined
          const vendored = args.path === 'unplugin-oac' ? this.ownModule('index') : await this.vendorModule(build, args)
          if (!vendored) return undefined
          const path = importPath(output, vendored.path)
          needs.set(path, vendored)
          return { path, external: true, ...(forBindingsOnly(args.importer, args.path) && { sideEffects: false }) }
        })
      },
    }
  }

  /**
   * Builds the vendor files `needs` name (and what those import in turn); our runtime's always; the
   * input check of each schema package in `schemaPackages` (each its own build, so a registry without
   * a TypeBox tool ships neither that check nor TypeBox, and a first TypeBox tool changes no other
   * vendor file); and the MCP server's when `withServer`.
   */
  async build(needs: readonly VendorModule[], options: VendorOptions): Promise<ScriptFile[]> {
    const wanted = this.runtimeBuilds(options)
    const want = (module: VendorModule) => addModule(wanted, module, module.pkg.dir)
    for (const module of needs) want(module)
    const done = new Set<string>()
    const buildKey = ({ group, modules }: VendorBuild) => `${group}\0${[...modules.keys()].sort().join('\0')}`
    // A build may import further packages' modules: build until nothing new is wanted. Our runtime's
    // builds go first, so that what they import joins each package's modules before the package is
    // built: a package built with a part of its modules would be built again with all of them.
    for (;;) {
      const pending = [...wanted.values()].filter((entry) => !done.has(buildKey(entry)))
      if (pending.length === 0) break
      const own = pending.filter((entry) => entry.pkg.dir === this.own().dir)
      const batch = own.length > 0 ? own : pending
      for (const entry of batch) done.add(buildKey(entry))
      const results = await Promise.all(batch.map(({ group, pkg, modules }) => this.buildPackage(group, pkg, [...modules.values()])))
      for (const result of results) for (const module of result.needs) want(module)
    }
    const files = [...wanted.keys()].flatMap((group) => this.built.get(group)!.files)
    if (options.withServer) files.push(...(await this.buildServer()))
    if (options.withBridge) files.push(...(await this.buildBridge()))
    return files
  }

  /**
   * Builds our runtime's own vendor files and the server's, which take nothing from the tools, so
   * they can be made while the tools' code is: `build` then finds them made. The packages they
   * import wait for `build`, which knows every module of each package that some file imports.
   */
  async buildRuntime(options: VendorOptions): Promise<void> {
    const own = [...this.runtimeBuilds(options).values()]
    await Promise.all([
      ...own.map(({ group, pkg, modules }) => this.buildPackage(group, pkg, [...modules.values()])),
      options.withServer && this.buildServer(),
      options.withBridge && this.buildBridge(),
      options.withHooks && this.hookRuntime(),
      options.withHooks && this.ownIndex(),
    ])
  }

  /**
   * The hook runtime (runtime/hook-start.ts) with all it uses, as one statement that a hook script
   * carries in itself: `var oacHookRuntime = (() => {...})()` (HOOK_RUNTIME_GLOBAL), its exports the
   * value. A function's scope, so that none of its names meets the script's own.
   */
  hookRuntime(): Promise<string> {
    return this.inlineBuild(HOOK_RUNTIME_GROUP, 'runtime/hook-start', { format: 'iife', globalName: HOOK_RUNTIME_GLOBAL })
  }

  /**
   * unplugin-oac's public module (defineHook and the rest) as one ES module, which a hook's code file
   * takes into itself (tree shaking keeps what the hook calls) rather than import the vendor
   * `index.mjs` and the chunk it imports.
   */
  ownIndex(): Promise<string> {
    return this.inlineBuild(OWN_INDEX_GROUP, 'index', { format: 'esm' })
  }

  /** One of our modules and all it imports, as one minified text; built once per process, and kept in the vendorCache between them. */
  private inlineBuild(group: string, module: OwnModule, options: Pick<BuildOptions, 'format' | 'globalName'>): Promise<string> {
    let text = this.inlineTexts.get(group)
    if (!text) {
      text = (async () => {
        const file = ownModule(module)
        const recorded = await vendorCache.read(cacheFolderOf(packageRoot), group, file)
        if (isInlineText(recorded)) {
          debugBundle('%s, from the cache', module)
          return recorded.text
        }
        debugBundle('%s, as one text', module)
        const result = await esbuild({ ...VENDOR_BUILD, entryPoints: [file], absWorkingDir: packageRoot, ...options })
        const built = result.outputFiles[0]!.text
        await vendorCache.write(cacheFolderOf(packageRoot), group, file, inputFiles(result.metafile, packageRoot), { text: built })
        return built
      })()
      this.inlineTexts.set(group, text)
      // A build that failed is tried again by the next compile.
      text.catch(() => this.inlineTexts.delete(group))
    }
    return text
  }

  /** The builds of our runtime's files, by group: one of the runtime, one per input check of ours. */
  private runtimeBuilds(options: VendorOptions): Map<string, VendorBuild> {
    const builds = new Map<string, VendorBuild>()
    for (const name of Object.keys(OWN_ENTRIES) as Array<keyof typeof OWN_ENTRIES>) {
      const module = this.ownModule(name)
      addModule(builds, module, module.pkg.dir)
    }
    for (const schemaPackage of [...options.schemaPackages].sort()) {
      const name = INPUT_CHECKS[schemaPackage]
      const own = this.own()
      addModule(builds, { pkg: own, file: ownModule(`runtime/${name}`), path: `${packageFolder(own)}/${name}.mjs` }, `${own.dir}\0${name}`)
    }
    return builds
  }

  /** `scripts/vendor/unplugin-oac@<version>/<name>.mjs`. */
  private ownModule(name: keyof typeof OWN_ENTRIES): VendorModule {
    const pkg = this.own()
    return { pkg, file: ownModule(OWN_ENTRIES[name]), path: `${packageFolder(pkg)}/${name}.mjs` }
  }

  private async buildPackage(group: string, pkg: PackageInfo, modules: VendorModule[]): Promise<BuiltFiles> {
    const key = modules.map((module) => module.file).sort().join('\0')
    const last = this.built.get(group)
    if (last?.key === key) return last
    const paths = modules.map((module) => module.path).sort().join(', ')
    const recorded = await vendorCache.read(cacheFolderOf(pkg.dir), group, key)
    if (isBuiltFiles(recorded)) {
      debugBundle('vendor files of %s@%s, from the cache: %s', pkg.name, pkg.version, paths)
      this.built.set(group, { key, ...recorded })
      return recorded
    }
    debugBundle('vendor files of %s@%s: %s', pkg.name, pkg.version, paths)
    const needs = new Map<string, VendorModule>()
    // Each module becomes the vendor file its path names; code they share goes into chunks beside them.
    const folder = packageFolder(pkg)
    const result = await esbuild({
      entryPoints: modules.map((module) => ({ in: module.file, out: posix.relative(folder, module.path).replace(/\.mjs$/, '') })),
      ...VENDOR_BUILD,
      absWorkingDir: pkg.dir,
      outdir: join(pkg.dir, '.oac-vendor', ...folder.split('/')),
      splitting: true,
      format: 'esm',
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      plugins: [this.plugin(`${folder}/index.mjs`, needs)],
    })
    // A bundled CommonJS module's `require` of a built-in needs a `require` in scope; only such a
    // package's files get one (making it is work for every script that loads them).
    const banner = result.outputFiles.some((file) => file.text.includes('__require')) ? `${REQUIRE_BANNER}\n` : ''
    const files = result.outputFiles.map((file) => ({ ...relocate(file, join(pkg.dir, '.oac-vendor')), text: banner + file.text }))
    const built = { files, needs: [...needs.values()].filter((module) => module.pkg.dir !== pkg.dir) }
    this.built.set(group, { key, ...built })
    // What the files import of other packages is named by those packages' versions and found by their
    // files: an upgrade of one of them, or of this one, changes a package.json or a file.
    const manifests = [pkg, ...built.needs.map((module) => module.pkg)].map((info) => join(info.dir, 'package.json'))
    const inputs = [...inputFiles(result.metafile, pkg.dir), ...built.needs.map((module) => module.file), ...manifests]
    await vendorCache.write(cacheFolderOf(pkg.dir), group, key, [...new Set(inputs)], built)
    return built
  }

  /**
   * The MCP server's runtime with the SDK and the parts of zod it uses, as one CommonJS file: all of
   * it runs at startup, so there is nothing to split off, and `require` skips the ES module loader's setup.
   */
  private async buildServer(): Promise<ScriptFile[]> {
    if (this.serverBuild) return this.serverBuild
    const path = this.runtimeFiles().mcpServer
    const recorded = await vendorCache.read(cacheFolderOf(packageRoot), SERVER_GROUP, path)
    if (isBuiltFiles(recorded)) {
      debugBundle('vendor file %s, from the cache', path)
      this.serverBuild = recorded.files
      return this.serverBuild
    }
    debugBundle('vendor file %s', path)
    const result = await esbuild({
      ...VENDOR_BUILD,
      // The jitless module first: ES modules run in import order, and the SDK builds its schemas as it loads.
      stdin: {
        contents: `import ${jsString(JITLESS_MODULE)}\nexport { startMcpServer } from ${jsString(ownModule('runtime/mcp-server'))}\n`,
        resolveDir: packageRoot,
        loader: 'js',
      },
      // ES modules are strict; as CommonJS they are so only with the directive, which esbuild adds for
      // an entry file it knows to be an ES module, and not for this one.
      banner: { js: '"use strict";' },
      absWorkingDir: packageRoot,
      outfile: join(packageRoot, '.oac-vendor', ...path.split('/')),
      format: 'cjs',
      plugins: [validatorPlugin(SDK_SERVER_MODULE, `export { NoElicitationValidator as AjvJsonSchemaValidator } from ${jsString(ownModule('runtime/mcp-server'))}`)],
    })
    this.serverBuild = result.outputFiles.map((file) => relocate(file, join(packageRoot, '.oac-vendor')))
    await vendorCache.write(cacheFolderOf(packageRoot), SERVER_GROUP, path, inputFiles(result.metafile, packageRoot), { files: this.serverBuild, needs: [] })
    return this.serverBuild
  }

  /**
   * The MCP bridge's runtime as two files: `mcp-bridge-start.cjs`, small and CommonJS (the generated
   * `mcp_bridge.cjs` requires it with Node's own loader, see entries.ts), which starts the stdio servers
   * with the spawn of the SDK's stdio transport (cross-spawn), and `mcp-bridge.mjs`, the SDK's client and
   * the parts of zod it uses, an ES module imported while the servers start. Like the server: the SDK's
   * ajv validator swapped for the bridge's own, zod jitless.
   */
  async buildBridge(): Promise<ScriptFile[]> {
    if (this.bridgeBuild) return this.bridgeBuild
    const { mcpBridge: path, mcpBridgeStart: startPath } = this.runtimeFiles()
    const recorded = await vendorCache.read(cacheFolderOf(packageRoot), BRIDGE_GROUP, path)
    if (isBuiltFiles(recorded)) {
      debugBundle('vendor files %s, %s, from the cache', startPath, path)
      this.bridgeBuild = recorded.files
      return this.bridgeBuild
    }
    debugBundle('vendor files %s, %s', startPath, path)
    const bridge = ownModule('runtime/mcp-bridge')
    const common = { ...VENDOR_BUILD, absWorkingDir: packageRoot } satisfies BuildOptions
    const results = await Promise.all([
      esbuild({ ...common, format: 'cjs', entryPoints: [ownModule('runtime/mcp-bridge-start')], outfile: join(packageRoot, '.oac-vendor', ...startPath.split('/')), plugins: [sdkSpawnPlugin()] }),
      esbuild({
        ...common,
        format: 'esm',
        stdin: { contents: `import ${jsString(JITLESS_MODULE)}\nexport { bridgeServers } from ${jsString(bridge)}\n`, resolveDir: packageRoot, loader: 'js' },
        outfile: join(packageRoot, '.oac-vendor', ...path.split('/')),
        plugins: [validatorPlugin(SDK_CLIENT_MODULE, `export { ForwardingValidator as AjvJsonSchemaValidator } from ${jsString(bridge)}`)],
      }),
    ])
    this.bridgeBuild = results.flatMap((result) =>
      result.outputFiles.map((file) => {
        const built = relocate(file, join(packageRoot, '.oac-vendor'))
        // The ES module's CommonJS dependencies need a `require`; the CommonJS one has its own.
        return built.path.endsWith('.mjs') && built.text.includes('__require') ? { ...built, text: `${REQUIRE_BANNER}\n${built.text}` } : built
      }),
    )
    const inputs = results.flatMap((result) => inputFiles(result.metafile, packageRoot))
    await vendorCache.write(cacheFolderOf(packageRoot), BRIDGE_GROUP, path, [...new Set(inputs)], { files: this.bridgeBuild, needs: [] })
    return this.bridgeBuild
  }

  /** The vendor module a bare import resolves to, or undefined to bundle it (local code, a CommonJS package). */
  private vendorModule(build: PluginBuild, args: OnResolveArgs): Promise<VendorModule | undefined> {
    const key = `${args.resolveDir}\0${args.path}\0${args.kind}`
    let module = this.resolved.get(key)
    if (!module) {
      module = build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: RESOLVING }).then((result) => {
        const file = result.errors.length === 0 && !result.external ? result.path : undefined
        const pkg = file ? this.packageOf(file) : undefined
        const vendored = file && pkg && this.isEsModule(file, pkg) ? { pkg, file, path: `${packageFolder(pkg)}/${vendorFileName(relative(pkg.dir, file))}` } : undefined
        debugBundle('%s of "%s" in %s: %s', args.kind, args.path, args.resolveDir, vendored?.path ?? 'bundled')
        return vendored
      })
      this.resolved.set(key, module)
      // A resolve that failed (its build stopped) is asked again by the next build.
      module.catch(() => this.resolved.delete(key))
    }
    return module
  }

  /** The installed package a file belongs to: the folder after its last `node_modules`. */
  private packageOf(file: string): PackageInfo | undefined {
    const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)
    if (!match) return undefined
    const dir = match[1]!
    if (this.packages.has(dir)) return this.packages.get(dir)
    const manifest = readJson(join(dir, 'package.json'))
    const info =
      typeof manifest?.name === 'string' && typeof manifest.version === 'string' ? { name: manifest.name, version: manifest.version, dir } : undefined
    this.packages.set(dir, info)
    return info
  }

  /** Node's rule: `.mjs`, or `.js` under a package.json with `"type": "module"` (the nearest one inside the package). */
  private isEsModule(file: string, pkg: PackageInfo): boolean {
    if (file.endsWith('.mjs')) return true
    if (!file.endsWith('.js')) return false
    let dir = dirname(file)
    for (;;) {
      const known = this.moduleTypes.get(dir)
      if (known !== undefined) return known
      const manifest = existsSync(join(dir, 'package.json')) ? readJson(join(dir, 'package.json')) : undefined
      if (manifest?.type !== undefined || dir === pkg.dir || dirname(dir) === dir) {
        const esm = manifest?.type === 'module'
        this.moduleTypes.set(dir, esm)
        return esm
      }
      dir = dirname(dir)
    }
  }
}

/** A generated file, its path relative to the scripts folder. */
export interface ScriptFile {
  path: string
  text: string
}

/** An output of a build whose output folder stands for the scripts folder at `base`. */
function relocate(file: OutputFile, base: string): ScriptFile {
  return { path: relative(base, file.path).split(sep).join('/'), text: file.text }
}

/**
 * Turns off zod's JIT in the server, before the SDK's schemas are made: zod compiles a `new
 * Function` per object schema on its first synchronous parse, which pays off over many parses of one
 * schema, not over the handful each protocol message type gets while a server starts (some 7% of
 * the instructions of its start). zod's documented `config({ jitless: true })`; the tools' own checks
 * parse asynchronously, which never compiles.
 */
const JITLESS_MODULE = 'oac:zod-jitless'

/** Where the bridge's start takes `cross-spawn` from: the SDK's stdio transport's own dependency, the spawn it would use. */
function sdkSpawnPlugin(): Plugin {
  const fromSdk = { fromSdk: true }
  return {
    name: 'oac-sdk-spawn',
    setup(build) {
      build.onResolve({ filter: /^cross-spawn$/ }, async (args) => {
        if (args.pluginData === fromSdk) return undefined
        const transport = await build.resolve('@modelcontextprotocol/sdk/client/stdio.js', { kind: 'import-statement', resolveDir: packageRoot })
        if (transport.errors.length > 0) return { errors: transport.errors }
        const spawn = await build.resolve(args.path, { kind: args.kind, resolveDir: dirname(transport.path), importer: transport.path, pluginData: fromSdk })
        return spawn.errors.length > 0 ? { errors: spawn.errors } : { path: spawn.path }
      })
    },
  }
}

/** The SDK's server (and client) imports its ajv validator as the default; ours passes its own
 * instead (the server NoElicitationValidator, the bridge ForwardingValidator), so that module (and
 * ajv, the bulk of the SDK's code) is swapped for `validator`, for imports by `importer`. And zod
 * goes jitless (JITLESS_MODULE). */
function validatorPlugin(importer: RegExp, validator: string): Plugin {
  return {
    name: 'oac-server',
    setup(build) {
      build.onResolve({ filter: /^oac:zod-jitless$/ }, () => ({ path: JITLESS_MODULE, namespace: JITLESS_MODULE }))
      build.onLoad({ filter: /.*/, namespace: JITLESS_MODULE }, () => ({
        contents: `import { config } from "zod/v4"\nconfig({ jitless: true })\n`,
        loader: 'js',
        resolveDir: packageRoot,
      }))
      build.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
        importer.test(args.importer) ? { path: args.path, namespace: VALIDATOR_NAMESPACE } : undefined,
      )
      build.onLoad({ filter: /.*/, namespace: VALIDATOR_NAMESPACE }, () => ({
        contents: validator,
        loader: 'js',
        resolveDir: packageRoot,
      }))
    },
  }
}
