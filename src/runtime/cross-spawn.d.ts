// cross-spawn has no types of its own; the bridge's start calls it as node's `spawn`, which it wraps.
declare module 'cross-spawn' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process'
  export default function spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcess
}
