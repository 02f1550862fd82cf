import type { Harness } from '../../define/types.js'
import { claude } from './claude.js'
import { codex } from './codex.js'
import { copilot } from './copilot.js'
import { gemini } from './gemini.js'
import { kilo } from './kilo.js'
import { omp } from './omp.js'
import { opencode } from './opencode.js'
import { pi } from './pi.js'
import { qwen } from './qwen.js'
import type { HarnessDescription } from './types.js'

export type * from './types.js'

/**
 * Every harness, described once. A new harness is its description module here plus its emitter in
 * `src/emit/` and its id in `HARNESSES` (src/define/types.ts): the `satisfies` below and the emitter
 * table in `src/emit/index.ts` then fail to type-check until both parts are registered.
 */
export const HARNESS_TABLE = { opencode, claude, codex, pi, omp, gemini, copilot, qwen, kilo } as const satisfies Record<Harness, HarnessDescription>

export function harness(id: Harness): HarnessDescription {
  return HARNESS_TABLE[id]
}
