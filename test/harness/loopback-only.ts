import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/** True when this machine can give a process a network namespace of its own (as root, or with user namespaces). */
export const canIsolateNetwork = spawnSync('unshare', ['-n', 'true']).status === 0

/**
 * The command line that runs `command` with no network but a loopback of its own, where the
 * scripted model still answers at its usual URL (forwarded to the endpoint's Unix socket): a run
 * that completes so proves the harness needed nothing but the endpoint. Where the machine cannot
 * isolate a process, the command runs as it is.
 */
export function loopbackOnly(model: { url: string; socket: string }, command: string, args: readonly string[]): { command: string; args: string[] } {
  if (!canIsolateNetwork) return { command, args: [...args] }
  const port = new URL(model.url).port
  const forward = join(import.meta.dirname, 'forward-and-run.mjs')
  const inner = ['node', forward, port, model.socket, command, ...args]
  return { command: 'unshare', args: ['-n', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...inner] }
}
