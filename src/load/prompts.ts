import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { isAgent } from '../compile/guards.js'
import { projectPath } from '../compile/source.js'
import type { AgentDefinition, RegistryDefinition } from '../define/types.js'
import type { Diagnostic } from '../diagnostics.js'

export interface Prompts {
  texts: Map<AgentDefinition, string>
  /** Absolute paths of the prompt files read. */
  files: string[]
  diagnostics: Diagnostic[]
}

/** Every agent's prompt text: strings as written, `{ file }` read next to the module that defines the agent. */
export async function readPrompts(registry: RegistryDefinition, root: string): Promise<Prompts> {
  const texts = new Map<AgentDefinition, string>()
  const files: string[] = []
  const diagnostics: Diagnostic[] = []
  for (const agent of registry.agents.filter(isAgent)) {
    const prompt = agent.prompt
    if (typeof prompt === 'string') {
      texts.set(agent, prompt)
      continue
    }
    if (typeof prompt?.file !== 'string') continue // compile reports the malformed prompt
    const file = resolve(dirname(agent.source.file), prompt.file)
    try {
      texts.set(agent, await readFile(file, 'utf8'))
      files.push(file)
    } catch (error) {
      const reason = (error as { code?: unknown }).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as Error).message})`
      diagnostics.push({
        severity: 'error',
        code: 'prompt-file-missing',
        message: `The prompt file of agent "${agent.name}" ${reason}: tried ${projectPath(root, file)}.`,
        fix: `Create ${projectPath(root, file)}, or fix prompt.file (it is resolved from the folder of the module that defines the agent).`,
        file: projectPath(root, agent.source.file),
        line: agent.source.line,
        column: agent.source.column,
      })
      // Watch the missing file too, so creating it triggers the next build.
      files.push(file)
    }
  }
  return { texts, files, diagnostics }
}
