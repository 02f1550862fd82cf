import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { access, readFile, realpath } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'

/* Finding a harness CLI and running one of its model-free commands, bounded. */

/** The first executable `bin` in the folders of `path` (a PATH value), as a shell would find it. */
export async function findBin(bin: string, path: string | undefined): Promise<string | undefined> {
  for (const folder of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(folder, bin)
    const found = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    )
    if (found) return candidate
  }
  return undefined
}

/** The version of npm package `name` a bin belongs to (its symlink followed up to the package's package.json), if it is one. */
export async function packageVersion(bin: string, name: string): Promise<string | undefined> {
  let folder = dirname(await realpath(bin).catch(() => bin))
  for (;;) {
    const manifest = await readFile(join(folder, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { name?: string; version?: string },
      () => undefined,
    )
    if (manifest?.name === name) return manifest.version
    if (dirname(folder) === folder) return undefined
    folder = dirname(folder)
  }
}

export interface ProbeRun {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
}

/**
 * Runs a command to its end, with nothing on stdin or a session's lines (stdin closed once its answer came), killed past `timeoutMs` with everything it started
 * (a harness starts our MCP server to list it): the whole process group, which then stops holding the pipes.
 */
export function runBounded(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; session?: { lines: string[]; until: RegExp } },
): Promise<ProbeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
    // A closed stdin ends a session; a CLI that is gone before it reads it makes the write fail (EPIPE), which its exit tells better.
    child.stdin.on('error', () => undefined)
    const { session } = options
    if (session) child.stdin.write(session.lines.map((line) => `${line}\n`).join(''))
    else child.stdin.end()
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const killGroup = () => {
      try {
        if (process.platform === 'win32') child.kill('SIGKILL')
        else process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
      child.stdout.destroy()
      child.stderr.destroy()
    }, options.timeoutMs)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (session && session.until.test(stdout)) child.stdin.end()
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      // What the CLI left running of its own (the MCP server it listed) goes with it.
      killGroup()
      resolve({ code, stdout, stderr, timedOut })
    })
  })
}
