import { spawnSync } from 'node:child_process'
import { type Run, run } from '../util/process.js'

const canUnshare = spawnSync('unshare', ['-n', 'true']).status === 0

/** Runs a command with no network but loopback where the machine allows it (`unshare -n`), else as is. */
export function offlineRun(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<Run> {
  if (!canUnshare) return run(command, args, options)
  return run('unshare', ['-n', '--', 'sh', '-c', 'ip link set lo up 2>/dev/null; exec "$@"', 'sh', command, ...args], options)
}

/** The tool script's own output for one input: what every harness must hand back for that call. */
export async function scriptOutput(target: string, script: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<string> {
  const result = await run('node', [script, '--json'], { cwd: target, stdin: JSON.stringify(input), env })
  if (result.code !== 0) throw new Error(`${script} failed: ${result.stderr}`)
  return result.stdout
}
