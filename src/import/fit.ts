import { commandFiles, commandProblem } from '../compile/commands.js'
import { agentNameProblem, skillNameProblem } from '../compile/names.js'
import { HARNESSES } from '../define/types.js'
import type { MergedRegistry } from './merge.js'
import type { NotCarried, ReadLocation } from './types.js'

/**
 * Why compile would refuse a definition as the files say it (a name the definition does not take,
 * no description), or undefined. The import lists such a definition rather than write a registry
 * that does not compile: a `README.md` among the commands, `speckit.plan.md`, an agent file without
 * a description.
 */
function unfit(noun: 'agent' | 'command' | 'skill', name: string, description: string): string | undefined {
  const nameProblem = (noun === 'agent' ? agentNameProblem : skillNameProblem)(name)
  if (nameProblem) return `its name ${nameProblem}, as every ${noun} definition's must; rename the file (or the skill's \`name\`) and import again`
  if (description.trim() === '') return `it has no description, which every ${noun} definition needs (a harness shows it to choose the ${noun}); add one to the file and import again`
  return undefined
}

/**
 * Why compile would refuse a command's text: a harness's command file would not show it as written
 * (Claude Code's and opencode's `` !`cmd` ``, a positional `$1`). The registry is compiled for every
 * harness, and a definition cannot say such text in all of them.
 */
function unfitPrompt(name: string, prompt: string): string | undefined {
  for (const { file } of commandFiles(HARNESSES)) {
    const problem = commandProblem(prompt, file, name)
    if (problem) return `its text has \`${problem.found}\`, which ${file.reader}'s command file would not show as written (there it ${problem.meaning}); a command definition is written for every harness: say it another way (in a code block, or as an instruction to run the command) and import again`
  }
  return undefined
}

/** The registry without the definitions compile would refuse, and those, listed where they were read. */
export function withoutUnfit(registry: MergedRegistry): { registry: MergedRegistry; notCarried: NotCarried[] } {
  const notCarried: NotCarried[] = []
  const keep = <T extends { name: string; description: string; prompt?: string }>(noun: 'agent' | 'command' | 'skill', list: T[], at: (item: T) => ReadLocation): T[] =>
    list.filter((item) => {
      const why = unfit(noun, item.name, item.description) ?? (noun === 'command' && item.prompt !== undefined ? unfitPrompt(item.name, item.prompt) : undefined)
      if (why) notCarried.push({ at: at(item), what: `${noun} "${item.name}"`, why })
      return !why
    })
  return {
    registry: {
      agents: keep('agent', registry.agents, (agent) => agent.from[0]!),
      commands: keep('command', registry.commands, (command) => command.at),
      skills: keep('skill', registry.skills, (skill) => skill.at),
      hooks: registry.hooks,
    },
    notCarried,
  }
}
