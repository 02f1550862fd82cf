import type { Plan } from '../compile/plan.js'
import type { Harness } from '../define/types.js'
import { emitClaude } from './claude.js'
import { emitCodex } from './codex.js'
import { emitCopilot } from './copilot.js'
import { emitGemini } from './gemini.js'
import { emitKilo } from './kilo.js'
import { emitOmp } from './omp.js'
import { emitOpencode } from './opencode.js'
import { emitPi } from './pi.js'
import { emitPrompts } from './prompts.js'
import { emitQwen } from './qwen.js'
import type { OutputFile } from './types.js'

const emitters: Record<Harness, (plan: Plan) => OutputFile[]> = {
  opencode: emitOpencode,
  claude: emitClaude,
  codex: emitCodex,
  pi: emitPi,
  omp: emitOmp,
  gemini: emitGemini,
  copilot: emitCopilot,
  qwen: emitQwen,
  kilo: emitKilo,
}

/** Every generated file but the bundled scripts: pure, so the same plan gives the same bytes anywhere. */
export function emitAll(plan: Plan): OutputFile[] {
  return [...emitPrompts(plan), ...plan.harnesses.flatMap((harness) => emitters[harness](plan))]
}
