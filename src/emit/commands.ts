import { commandNameIn } from '../compile/command-names.js'
import { commandDescription, commandFiles, commandModel, commandPrompt } from '../compile/commands.js'
import { harness } from '../compile/harnesses/index.js'
import type { CommandFile } from '../compile/harnesses/types.js'
import type { Plan, PlannedCommand } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { markdownWithFrontmatter, tomlDocument } from './codegen/escape.js'
import type { OwnedFile } from './types.js'

/**
 * Every command in each command file the plan's harnesses read (`commandFiles`: a file two harnesses
 * read is written once), in its format, `{{args}}` written in its reader's syntax and the rest of the
 * prompt through its escape. Driven by each harness's `commands` description; pure.
 */
export function emitCommands(plan: Plan): OwnedFile[] {
  const commands = plan.commands ?? []
  if (commands.length === 0) return []
  return commandFiles(plan.harnesses).flatMap(({ file, readers }) => commandsAs(plan, file, readers))
}

/** Every command of the plan as `file` says (a plugin passes one whose path is in its folder), for the harnesses `readers` that read it. */
export function commandsAs(plan: Plan, file: CommandFile, readers: readonly Harness[]): OwnedFile[] {
  return (plan.commands ?? []).flatMap((command) => commandFile(command, file, readers))
}

/** The command in `file`, or nothing where the file cannot say its prompt (compile warned: `commandNeeds`). */
function commandFile(command: PlannedCommand, file: CommandFile, readers: readonly Harness[]): OwnedFile[] {
  const named = commandNameIn(command.name, file)
  const path = file.path(named.path)
  const prompt = commandPrompt(command.prompt, file, named.name)
  if (prompt === undefined) return []
  const description = commandDescription(command.description, prompt, file)
  const own = command.harness?.[file.harness] ?? {}
  if (file.format === 'toml') return [{ kind: 'owned', path, content: tomlDocument({ ...(description !== undefined && { description }), ...own, prompt }) }]
  const { argumentHint, agent, model } = file.fields
  const modelId = commandModel(command.model, file)
  const frontmatter: { [key: string]: JsonValue } = {
    ...(file.format === 'skill' ? { name: named.name } : {}),
    ...(description !== undefined && { description }),
    ...(argumentHint !== undefined && command.argumentHint !== undefined ? { [argumentHint]: command.argumentHint } : {}),
    ...(agent !== undefined && command.agent !== undefined ? agent(command.agent) : {}),
    ...(model !== undefined && modelId !== undefined ? { [model]: modelId } : {}),
    ...own,
    // A command as a skill is the user's to start: said to every harness that reads the folder (oh-my-pi too).
    ...(file.format === 'skill' ? { 'disable-model-invocation': true } : {}),
  }
  const files: OwnedFile[] = [{ kind: 'owned', path, content: markdownWithFrontmatter(frontmatter, prompt) }]
  if (file.format === 'skill') {
    const folder = path.slice(0, path.lastIndexOf('/'))
    for (const id of readers) {
      const { userOnly } = harness(id).skills
      if ('file' in userOnly) files.push({ kind: 'owned', path: `${folder}/${userOnly.file}`, content: userOnly.content })
    }
  }
  return files
}
