import type { Plan } from '../compile/plan.js'
import { renderAgentPrompt } from './codegen/prompt-docs.js'
import type { OutputFile } from './types.js'

/** `prompts/<agent>.md`: each agent's harness-neutral prompt with its tool docs (the bash route works everywhere). */
export function emitPrompts(plan: Plan): OutputFile[] {
  return plan.agents.map((agent) => ({
    kind: 'owned',
    path: `prompts/${agent.name}.md`,
    content: renderAgentPrompt(plan, agent),
  }))
}
