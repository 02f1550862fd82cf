import type { JsonValue } from '../../define/types.js'
import type { HarnessFieldProblem } from './types.js'

/** Frontmatter keys written from the agent definition in the Markdown agent files of Gemini CLI, Qwen Code and Copilot. */
export const OWNED_FRONTMATTER_KEYS: Record<string, string> = {
  name: 'the agent `name`',
  description: 'the agent `description`',
  tools: 'the agent `tools` and `builtinTools`',
  model: 'the agent `model` (or the config `models`)',
}

/**
 * Checks `harness.<id>` against the keys unplugin-oac writes itself and, for a harness whose
 * frontmatter schema is closed, against the keys it accepts.
 */
export function frontmatterFieldCheck(id: string, title: string, accepted?: readonly string[]) {
  return (fields: Record<string, JsonValue>, agentName: string): HarnessFieldProblem[] =>
    Object.keys(fields).flatMap((key): HarnessFieldProblem[] => {
      if (Object.hasOwn(OWNED_FRONTMATTER_KEYS, key)) {
        const owner = OWNED_FRONTMATTER_KEYS[key]
        return [
          {
            code: 'harness-field-reserved',
            message: `Agent "${agentName}" sets \`harness.${id}.${key}\`, which unplugin-oac writes itself from ${owner}.`,
            fix: `Remove \`${key}\` from \`harness.${id}\` and set ${owner} instead.`,
          },
        ]
      }
      if (accepted && !accepted.includes(key)) {
        return [
          {
            code: 'harness-field-unknown',
            message: `Agent "${agentName}" sets \`harness.${id}.${key}\`, which ${title} does not accept in an agent file (it would refuse to load the agent).`,
            fix: `Use one of: ${accepted.join(', ')}.`,
          },
        ]
      }
      return []
    })
}
