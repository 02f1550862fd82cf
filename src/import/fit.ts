import { commandNameIn, commandNameProblem } from '../compile/command-names.js'
import { commandFiles, commandProblem } from '../compile/commands.js'
import { harness } from '../compile/harnesses/index.js'
import { PLACEHOLDER } from '../compile/index.js'
import { agentNameProblem, serverNameProblem, skillNameProblem } from '../compile/names.js'
import { DEFAULT_SERVER_NAME } from '../compile/plan.js'
import { BLOCK_MARKER } from '../compile/rules.js'
import { HARNESSES } from '../define/types.js'
import { findSecrets } from '../secrets.js'
import type { MergedRegistry } from './merge.js'
import type { NotCarried, ReadLocation } from './types.js'

/**
 * Why compile would refuse a definition as the files say it (a name the definition does not take,
 * no description), or undefined. The import lists such a definition rather than write a registry
 * that does not compile: a `README.md` among the commands, `Deploy Now.md`, an agent file without
 * a description.
 */
function unfit(noun: 'agent' | 'command' | 'skill', name: string, description: string | undefined): string | undefined {
  const nameProblem = (noun === 'agent' ? agentNameProblem : noun === 'command' ? commandNameProblem : skillNameProblem)(name)
  if (nameProblem) return `its name ${nameProblem}, as every ${noun} definition's must; rename the file (or the skill's \`name\`) and import again`
  // A command may have none: the harnesses show its first line.
  if (noun === 'command' ? description?.trim() === '' : (description ?? '').trim() === '') return `it has no description, which every ${noun} definition needs (a harness shows it to choose the ${noun}); add one to the file and import again`
  return undefined
}

/**
 * Why compile would refuse a command's text: a harness's command file would not show it as written
 * (opencode's `$1.50`, Claude Code's "```!" block). The registry is compiled for every harness, and a
 * definition cannot say such text in all of them.
 */
function unfitPrompt(name: string, prompt: string): string | undefined {
  for (const { file } of commandFiles(HARNESSES)) {
    const problem = commandProblem(prompt, file, commandNameIn(name, file).name)
    if (problem) return `its text has \`${problem.found}\`, which ${file.reader}'s command file would not show as written (there it ${problem.meaning}); a command definition is written for every harness: say it another way (in a code block, or as an instruction to run the command) and import again`
  }
  return undefined
}

/** Why compile would refuse an agent's prompt: a `${name}` that Gemini CLI and Qwen Code fill in, and no escape says as text. */
function unfitAgentPrompt(prompt: string): string | undefined {
  const found = PLACEHOLDER.exec(prompt)
  if (!found) return undefined
  const filling = HARNESSES.filter((id) => harness(id).fillsPromptPlaceholders).map((id) => harness(id).title)
  return `its prompt has \`${found[0]}\`, which ${filling.join(' and ')} fill in as a placeholder when the agent starts (and refuse to start it without a value); a definition is written for every harness: say it another way (\`{${found[1]}}\`) and import again`
}

/** Why compile would refuse a rule: its name, or our block's marker in its text. */
function unfitRule(name: string, text: string): string | undefined {
  const nameProblem = skillNameProblem(name)
  if (nameProblem) return `its name ${nameProblem}, as every rule definition's must; rename the file and import again`
  if (text.includes(BLOCK_MARKER)) return `its text has \`${BLOCK_MARKER}\`, which starts the comments that mark unplugin-oac's block in a file; write it another way and import again`
  return undefined
}

/** Why compile would refuse a server: its name, or credentials in its URL. */
function unfitServer(name: string, url: string | undefined): string | undefined {
  const nameProblem = serverNameProblem(name, HARNESSES)
  if (nameProblem) return `its name ${nameProblem}; rename it and import again`
  if (name === DEFAULT_SERVER_NAME) return "it has the name of unplugin-oac's own server; rename it and import again"
  if (url !== undefined && URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '')) return 'its URL holds a user name or password, which the import does not copy; send the credential as a bearer token from the environment and import again'
  return undefined
}

/**
 * Why the write would refuse a definition's texts: one holds what looks like a secret, which no generated
 * file may hold (src/write/secrets.ts). A secret in a hand-written file was committed already; copying it
 * into nine more is what the check stops.
 */
function unfitSecret(texts: readonly string[]): string | undefined {
  for (const text of texts) {
    const found = findSecrets(text)[0]
    if (found) return `its text has "${found.match.slice(0, 6)}…", which looks like ${found.kind}, and compile writes no such literal into a file; take it out (a secret belongs in the environment) and import again`
  }
  return undefined
}

/** The registry without the definitions compile would refuse, and those, listed where they were read. */
export function withoutUnfit(registry: MergedRegistry): { registry: MergedRegistry; notCarried: NotCarried[] } {
  const notCarried: NotCarried[] = []
  const keep = <T extends { name: string; description?: string; prompt?: string; instructions?: string; files?: Record<string, string> }>(noun: 'agent' | 'command' | 'skill', list: T[], at: (item: T) => ReadLocation): T[] =>
    list.filter((item) => {
      const why =
        unfit(noun, item.name, item.description) ??
        unfitSecret([item.description ?? '', item.prompt ?? '', item.instructions ?? '', ...Object.values(item.files ?? {})]) ??
        (noun === 'command' && item.prompt !== undefined ? unfitPrompt(item.name, item.prompt) : undefined) ??
        (noun === 'agent' && item.prompt !== undefined ? unfitAgentPrompt(item.prompt) : undefined) ??
        // Claude Code and the Copilot CLI list skills and commands under one set of names: the skill stays.
        (noun === 'command' && registry.skills.some((skill) => skill.name === item.name) ? `a skill has the same name, and Claude Code and the Copilot CLI list skills and commands under one set of names; rename the command file and import again` : undefined)
      if (why) notCarried.push({ at: at(item), what: `${noun} "${item.name}"`, why })
      return !why
    })
  return {
    registry: {
      agents: keep('agent', registry.agents, (agent) => agent.from[0]!),
      commands: keep('command', registry.commands, (command) => command.at),
      skills: keep('skill', registry.skills, (skill) => skill.at),
      hooks: registry.hooks,
      rules: registry.rules.filter((rule) => {
        const why = unfitRule(rule.name, rule.text) ?? unfitSecret([rule.text])
        if (why) notCarried.push({ at: rule.at, what: `rule "${rule.name}"`, why })
        return !why
      }),
      mcpServers: registry.mcpServers.filter((server) => {
        const why = unfitServer(server.name, server.url)
        if (why) notCarried.push({ at: server.at, what: `MCP server "${server.name}"`, why })
        return !why
      }),
    },
    notCarried,
  }
}
