import { spawn } from 'node:child_process'
import type { Writable } from 'node:stream'

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command as a real process, feeding `stdin`, and collects its output and exit code. */
export function run(command: string, args: readonly string[], options: { cwd: string; stdin?: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    endStdin(child.stdin, options.stdin ?? '', reject)
  })
}

/**
 * Writes to a child's stdin (`write` and `end` both go through the stream) with its errors handled.
 * A child may exit before it reads all of its input (it failed, or needs none; on a busy machine it
 * may even be gone before a write of nothing): the write then fails with EPIPE, which tells nothing
 * the child's exit does not, and, with no listener, would be an uncaught error that fails the whole
 * test run. Any other error goes to `onError`.
 */
export function guardStdin(stdin: Writable, onError: (error: Error) => void = () => {}): Writable {
  stdin.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') onError(error)
  })
  return stdin
}

/** Ends a child's stdin with `text`, as `guardStdin` says. */
export function endStdin(stdin: Writable, text: string, onError?: (error: Error) => void): void {
  guardStdin(stdin, onError).end(text)
}
