import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { processAlive } from '../write/lock.js'

const FOLDER_NAME = /^(\d+)-\d+$/
let instances = 0

/**
 * The generated entry modules of one ScriptBundler as files, in `<tmp>/oac-entries/<pid>-<n>/`: one
 * folder per bundler, so concurrent builds never share one, and none in the project (the entries
 * import only absolute paths, so where they lie changes nothing in the output). A file is rewritten
 * only when its source changes, so a rebuild sees only real edits. The folder goes on dispose; a
 * folder whose process is gone goes with the next bundler's first write.
 */
export class EntryFiles {
  private readonly cacheFolder: string
  private readonly folder: string
  /** The source last written for each entry name. */
  private readonly written = new Map<string, string>()

  constructor() {
    // The real path: esbuild reports inputs by it (macOS's temp folder is reached through a symlink).
    this.cacheFolder = join(realpathSync(tmpdir()), 'oac-entries')
    this.folder = join(this.cacheFolder, `${process.pid}-${++instances}`)
  }

  path(name: string): string {
    return join(this.folder, `${name}.mjs`)
  }

  /** True for a path of one of these entries. */
  holds(path: string): boolean {
    return dirname(path) === this.folder
  }

  /** Makes the folder hold exactly these entries (name -> source); returns the names whose source changed. */
  write(sources: ReadonlyMap<string, string>): Set<string> {
    const changed = new Set<string>()
    if (this.written.size === 0) {
      this.removeAbandoned()
      mkdirSync(this.folder, { recursive: true })
    }
    for (const [name, source] of sources) {
      if (this.written.get(name) === source) continue
      writeFileSync(this.path(name), source)
      this.written.set(name, source)
      changed.add(name)
    }
    for (const name of [...this.written.keys()]) {
      if (sources.has(name)) continue
      rmSync(this.path(name), { force: true })
      this.written.delete(name)
    }
    return changed
  }

  async dispose(): Promise<void> {
    this.written.clear()
    await rm(this.folder, { recursive: true, force: true })
  }

  /** Entry folders of processes that ended without disposing their bundler (killed builds). */
  private removeAbandoned(): void {
    let names: string[]
    try {
      names = readdirSync(this.cacheFolder)
    } catch {
      return
    }
    for (const name of names) {
      const pid = FOLDER_NAME.exec(name)?.[1]
      if (pid && !processAlive(Number(pid))) rmSync(join(this.cacheFolder, name), { recursive: true, force: true })
    }
  }
}
