import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The temp-folder variables os.tmpdir() reads (TMPDIR on POSIX, TMP and TEMP on Windows); child processes inherit them. */
const TEMP_VARIABLES = ['TMPDIR', 'TMP', 'TEMP'] as const

/**
 * Gives the run a fresh temp folder of its own, so two copies of the suite side by side never see each
 * other's folders, and fails the run, listing them, when a test left anything in it. The folder goes in
 * any case.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const previous = TEMP_VARIABLES.map((name) => [name, process.env[name]] as const)
  const runFolder = await mkdtemp(join(tmpdir(), 'oac-test-run-'))
  // Set before vitest starts its workers, which inherit the environment.
  for (const name of TEMP_VARIABLES) process.env[name] = runFolder

  return async () => {
    const left = await leftovers(runFolder)
    await rm(runFolder, { recursive: true, force: true })
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    if (left.length > 0) {
      process.exitCode = 1
      throw new Error(`tests left ${left.length} entries in the temp folder (removed now); each test must remove what it creates:\n  ${left.join('\n  ')}`)
    }
  }
}

/**
 * What is left in the run's temp folder. `node-compile-cache/` is Node's own compile cache, which the
 * generated scripts and MCP server turn on (module.enableCompileCache() puts it in the OS temp folder
 * by design, never in the user's project): it is Node's to keep, not a test's leftover.
 */
const NODE_COMPILE_CACHE = 'node-compile-cache'

async function leftovers(runFolder: string): Promise<string[]> {
  return (await readdir(runFolder)).filter((name) => name !== NODE_COMPILE_CACHE).sort()
}
