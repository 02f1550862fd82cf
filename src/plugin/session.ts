import { stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { Compiler, type Generated } from '../api.js'
import { parseRegistrySpec, resolveModulePath } from '../load/spec.js'
import { packageRoot } from '../package-paths.js'
import type { OacPluginOptions } from './options.js'

/** True when `path` is `folder` itself or lies inside it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/** A POSIX path of `path` relative to `from` (`.` for the folder itself). */
export function posixRelative(from: string, path: string): string {
  return relative(from, path).split(sep).join('/') || '.'
}

/** Files and folders the host bundler should watch. */
export interface WatchPlan {
  files: string[]
  /** Folders of definition files, so new files there trigger a rebuild; never a folder we write into. */
  dirs: string[]
}

type Fingerprint = Map<string, string>

async function fingerprint(files: Iterable<string>): Promise<Fingerprint> {
  const entries = await Promise.all(
    [...new Set(files)].map(async (file) => {
      try {
        const info = await stat(file)
        return [file, `${info.mtimeMs}:${info.size}`] as const
      } catch {
        return [file, 'missing'] as const
      }
    }),
  )
  return new Map(entries)
}

async function unchanged(previous: Fingerprint): Promise<boolean> {
  const now = await fingerprint(previous.keys())
  for (const [file, mark] of previous) if (now.get(file) !== mark) return false
  return true
}

interface Settled {
  generated?: Generated
  error?: unknown
  /** The watched files' state when the compile started, so an edit made during it is not lost. */
  fingerprint: Fingerprint
}

/**
 * The state one plugin instance keeps across builds, rebuilds and Vite environments: the pipeline's
 * Compiler (with its incremental script bundler) and the last result. A build asks `refresh()`, which
 * compiles only when a file the last result came from has changed, so the client and ssr builds of one
 * `vite build` share a single compile while every watch rebuild after an edit gets a fresh one.
 */
export class OacSession {
  readonly options: OacPluginOptions
  private projectRoot: string | undefined
  private compiler: Compiler | undefined
  private inFlight: Promise<Settled> | undefined
  private settled: Settled | undefined
  /** Source files of the last successful compile, still watched after a failed one so a fix rebuilds. */
  private knownFiles: string[] = []

  constructor(options: OacPluginOptions) {
    this.options = options
  }

  /** Sets the project root once the host knows it (an explicit `root` option always wins). */
  useRoot(hostRoot: string): void {
    const root = resolve(this.options.root ?? hostRoot)
    if (root === this.projectRoot) return
    const previous = this.compiler
    this.compiler = undefined
    this.projectRoot = root
    this.settled = undefined
    void previous?.dispose()
  }

  get root(): string {
    if (!this.projectRoot) this.useRoot(process.cwd())
    return this.projectRoot!
  }

  /** The registry module itself, watched even before the first compile succeeds. */
  get registryFile(): string | undefined {
    const spec = parseRegistrySpec(this.options.registry)
    return spec && resolveModulePath(resolve(this.root, spec.path))
  }

  /** The absolute target folder: the `target` option, else the host's output folder. */
  target(outDir: string | undefined): string {
    if (this.options.target !== undefined) return resolve(this.root, this.options.target)
    if (outDir === undefined) {
      throw new Error('unplugin-oac: the build has no output folder, so option `target` must say where the agent tree goes (e.g. target: ".")')
    }
    return resolve(outDir)
  }

  /**
   * The current compile: reuses the last result while none of its files changed, else compiles again.
   * Concurrent callers share one compile. Throws the pipeline's OacError on errors.
   */
  async refresh(): Promise<Generated> {
    if (!this.inFlight) {
      const last = this.settled
      if (!last || last.error !== undefined || !(await unchanged(last.fingerprint))) {
        this.inFlight ??= this.compile()
      }
    }
    const settled = this.inFlight ? await this.inFlight : this.settled!
    return unwrap(settled)
  }

  /** The result of the compile in progress or the last one, compiling only when there is none (the virtual module's load). */
  async latest(): Promise<Generated> {
    if (this.inFlight) return unwrap(await this.inFlight)
    if (this.settled) return unwrap(this.settled)
    return this.refresh()
  }

  private async compile(): Promise<Settled> {
    const compiler = (this.compiler ??= new Compiler(this.root))
    const before = await fingerprint(this.watchedSources())
    let settled: Settled
    try {
      const generated = await compiler.generate(this.options)
      this.knownFiles = generated.watchFiles
      const fresh = [...generated.watchFiles].filter((file) => !before.has(file))
      const after = await fingerprint(fresh)
      const sources = new Set(generated.watchFiles)
      settled = { generated, fingerprint: new Map([...before, ...after].filter(([file]) => sources.has(file))) }
    } catch (error) {
      settled = { error, fingerprint: before }
    }
    this.settled = settled
    this.inFlight = undefined
    return settled
  }

  private watchedSources(): string[] {
    const registry = this.registryFile
    return [...new Set([...this.knownFiles, ...(registry ? [registry] : [])])].sort()
  }

  /**
   * What to watch: every source file of the last compile (the registry module at least; our own modules
   * aside), and the folders of the project's own definition files. A folder is left out when it holds an
   * agent-tree target or one of the given output paths: watching what we write would rebuild on every write.
   */
  watchPlan(targets: readonly string[], outputs: readonly string[]): WatchPlan {
    const written = new Set(outputs)
    // Our own modules (the runtime bundled into the scripts) are not the project's: installed, they never change.
    const files = this.watchedSources().filter((file) => !written.has(file) && !isInside(file, packageRoot))
    const dirs = new Set<string>()
    for (const file of files) {
      const dir = dirname(file)
      if (dir.split(sep).includes('node_modules')) continue
      if (targets.some((target) => isInside(target, dir))) continue
      if (outputs.some((output) => isInside(output, dir))) continue
      dirs.add(dir)
    }
    return { files, dirs: [...dirs].sort() }
  }

  /** The last successful result, if the last compile succeeded. */
  settledResult(): Generated | undefined {
    return this.settled?.generated
  }

  /**
   * Ends the Compiler's esbuild service after a build that is not watching, keeping the last result:
   * a later build of the same plugin instance starts a new Compiler only if something changed.
   */
  async release(): Promise<void> {
    await this.inFlight
    const compiler = this.compiler
    this.compiler = undefined
    await compiler?.dispose()
  }
}

function unwrap(settled: Settled): Generated {
  if (settled.error !== undefined) throw settled.error
  return settled.generated!
}
