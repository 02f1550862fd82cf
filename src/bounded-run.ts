import { spawn } from 'node:child_process'

/* Running a command of someone else's (a harness CLI's probe, a hook's registered command) to its end, bounded. */

export interface BoundedRun {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
}

export interface BoundedRunOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  /** Run `command` through the shell, as a harness runs a registered hook command (then `args` is empty). */
  shell?: boolean
  /** Text written to stdin, which is then closed; absent: nothing on stdin. */
  input?: string
  /** A session's lines on stdin, which is closed once stdout matches `until` (the answer). */
  session?: { lines: string[]; until: RegExp }
}

/**
 * Runs a command to its end, killed past `timeoutMs` with everything it started (a harness starts our
 * MCP server to list it; a shell starts the hook's node): the whole process group, which then stops
 * holding the pipes.
 */
export function runBounded(command: string, args: readonly string[], options: BoundedRunOptions): Promise<BoundedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, shell: options.shell ?? false, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
    // A closed stdin ends a session; a command that is gone before it reads its input makes the write fail (EPIPE), which its exit tells better.
    child.stdin.on('error', () => undefined)
    const { session } = options
    if (session) child.stdin.write(session.lines.map((line) => `${line}\n`).join(''))
    else child.stdin.end(options.input ?? '')
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
      // What the command left running of its own (the MCP server a CLI listed) goes with it.
      killGroup()
      resolve({ code, stdout, stderr, timedOut })
    })
  })
}
