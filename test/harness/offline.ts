import { canIsolateNetwork } from './loopback-only.js'
import { bounded, type BoundedRun, RUN_TIMEOUT_MS } from './project.js'

/** Runs a command, bounded, with no network but loopback where the machine allows it (`unshare -n`), else as is. */
export function offlineRun(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<BoundedRun> {
  const isolated = canIsolateNetwork ? { command: 'unshare', args: ['-n', '--', 'sh', '-c', 'ip link set lo up 2>/dev/null; exec "$@"', 'sh', command, ...args] } : { command, args }
  return bounded(isolated.command, isolated.args, { ...options, timeoutMs: RUN_TIMEOUT_MS })
}
