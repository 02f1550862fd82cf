import type { Plan } from '../compile/plan.js'
import type { Harness } from '../define/types.js'
import { emitClaude } from './claude.js'
import { emitCommands } from './commands.js'
import { emitCodex } from './codex.js'
import { emitCopilot } from './copilot.js'
import { emitGemini } from './gemini.js'
import { emitKilo } from './kilo.js'
import { emitOmp } from './omp.js'
import { emitOpencode } from './opencode.js'
import { emitPi } from './pi.js'
import { emitPrompts } from './prompts.js'
import { emitQwen } from './qwen.js'
import { emitSkills } from './skills.js'
import type { OutputFile } from './types.js'

/** A harness's emitter: the files its description (src/compile/harnesses/<id>.ts) says it gets. Pure. */
export type HarnessEmitter = (plan: Plan) => OutputFile[]

/** Every harness's emitter; one line per harness, and a harness without one does not type-check. */
const EMITTERS = { opencode: emitOpencode, claude: emitClaude, codex: emitCodex, pi: emitPi, omp: emitOmp, gemini: emitGemini, copilot: emitCopilot, qwen: emitQwen, kilo: emitKilo } satisfies Record<Harness, HarnessEmitter>

/**
 * Every generated file but the bundled scripts: pure, so the same plan gives the same bytes anywhere.
 * Skills and commands are written below the emitters, from each harness's description.
 */
export function emitAll(plan: Plan): OutputFile[] {
  return [...emitPrompts(plan), ...plan.harnesses.flatMap((id) => EMITTERS[id](plan)), ...emitSkills(plan), ...emitCommands(plan)]
}
