import type { Plan } from '../compile/plan.js'
import { emitGeminiFamily } from './gemini.js'
import { PERMISSIONS_LISTS } from './mcp-tools.js'
import type { OutputFile } from './types.js'

/**
 * Qwen Code (a Gemini CLI fork): our server merged into `.qwen/settings.json` (JSONC, the same entry
 * as Gemini's) and one `.qwen/agents/<agent>.md` per agent, whose `tools` name MCP tools
 * `mcp__<server>__<tool>`. Its frontmatter is lenient (unknown keys are dropped), so `harness.qwen`
 * fields pass as given; like Gemini it fills `${name}` placeholders in the prompt.
 */
export function emitQwen(plan: Plan): OutputFile[] {
  // Qwen Code takes approval rules as Claude Code does.
  return emitGeminiFamily(plan, { harness: 'qwen', folder: '.qwen', permissionLists: PERMISSIONS_LISTS })
}
