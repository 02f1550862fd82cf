import { DEFAULT_HOOK_TIMEOUT_MS, type HookDefinition, type HookEvent, type HookOptions, type HookToolRef } from './hooks.js'
import { callerLocation } from './source.js'
import type {
  AgentDefinition,
  AgentOptions,
  CommandDefinition,
  CommandOptions,
  RegistryDefinition,
  RegistryOptions,
  SkillDefinition,
  SkillOptions,
  ToolDefinition,
  ToolInputSchema,
  ToolOptions,
  ToolOutputSchema,
} from './types.js'

/**
 * Defines a tool. The definition is plain data plus `run`; names, descriptions and schemas are
 * checked by the compile step, which reports problems with this call's file and line.
 */
export function defineTool<S extends ToolInputSchema, O extends ToolOutputSchema | undefined = undefined, const N extends string = string>(
  options: ToolOptions<S, O, N>,
): ToolDefinition<S, O, N> {
  return {
    kind: 'oac:tool',
    name: options.name,
    ...(options.title !== undefined && { title: options.title }),
    description: options.description,
    input: options.input,
    output: options.output as O,
    run: options.run,
    effects: options.effects ?? {},
    json: options.json ?? true,
    replacesBuiltin: options.replacesBuiltin ?? false,
    source: callerLocation(),
  }
}

export function defineAgent(options: AgentOptions): AgentDefinition {
  return {
    kind: 'oac:agent',
    name: options.name,
    description: options.description,
    prompt: options.prompt,
    tools: options.tools ?? [],
    model: options.model,
    mode: options.mode ?? 'subagent',
    toolFormat: options.toolFormat ?? 'both',
    toolFormatOverrides: options.toolFormatOverrides ?? {},
    builtinTools: options.builtinTools ?? {},
    harness: options.harness ?? {},
    hooks: options.hooks ?? [],
    source: callerLocation(),
  }
}

/**
 * Defines a hook: `run` gets the event, typed by `on` and by the tools it watches (one of ours has its
 * input typed from its schema), and returns what its `ctx` decides, or nothing. Compiled into the hook
 * system of every harness the config selects.
 */
export function defineHook<E extends HookEvent, const T extends HookToolRef = never>(options: HookOptions<E, T>): HookDefinition<E, T> {
  return {
    kind: 'oac:hook',
    name: options.name,
    description: options.description,
    on: options.on,
    tools: options.tools,
    onError: options.onError ?? 'block',
    timeoutMs: options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    run: options.run,
    source: callerLocation(),
  }
}

/**
 * Defines a skill: a folder with a SKILL.md (the Agent Skills format) that every harness loads, its
 * tools documented as the commands that run them. Checked by the compile step, like tools.
 */
export function defineSkill(options: SkillOptions): SkillDefinition {
  return {
    kind: 'oac:skill',
    name: options.name,
    description: options.description,
    instructions: options.instructions,
    tools: options.tools ?? [],
    files: options.files ?? {},
    modelInvocation: options.modelInvocation ?? true,
    ...(options.license !== undefined && { license: options.license }),
    ...(options.compatibility !== undefined && { compatibility: options.compatibility }),
    ...(options.metadata !== undefined && { metadata: options.metadata }),
    ...(options.allowedTools !== undefined && { allowedTools: options.allowedTools }),
    harness: options.harness ?? {},
    source: callerLocation(),
  }
}

/** Defines a command: a prompt the user starts with `/name`, written in each harness's own command format. */
export function defineCommand(options: CommandOptions): CommandDefinition {
  return {
    kind: 'oac:command',
    name: options.name,
    ...(options.description !== undefined && { description: options.description }),
    prompt: options.prompt,
    ...(options.argumentHint !== undefined && { argumentHint: options.argumentHint }),
    ...(options.agent !== undefined && { agent: options.agent }),
    ...(options.model !== undefined && { model: options.model }),
    harness: options.harness ?? {},
    source: callerLocation(),
  }
}

export { defineMcpServer, fromEnv } from './mcp-servers.js'

export function defineRegistry(options: RegistryOptions): RegistryDefinition {
  return {
    kind: 'oac:registry',
    agents: options.agents,
    tools: options.tools ?? [],
    hooks: options.hooks ?? [],
    skills: options.skills ?? [],
    commands: options.commands ?? [],
    mcpServers: options.mcpServers ?? [],
    rules: options.rules ?? [],
    configs: options.configs ?? {},
    source: callerLocation(),
  }
}
