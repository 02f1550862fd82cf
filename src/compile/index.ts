import type { AgentDefinition, Harness, RegistryDefinition, SourceLocation } from '../define/types.js'
import { type Diagnostic, hasErrors, withLevels } from '../diagnostics.js'
import type { LoadedRegistry } from '../load/index.js'
import { planAgent } from './agents.js'
import { approvalRules, checkApprovalNames, serverApproval } from './approval.js'
import { checkCommandNames } from './command-names.js'
import { commandFiles, planCommand, registryCommands } from './commands.js'
import { type PlanOptions, type ResolvedConfig, resolveConfig } from './config.js'
import { Findings } from './findings.js'
import { type DefinitionList, registryList } from './registry-lists.js'
import { planHooks } from './hooks.js'
import { isAgent } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import type { McpServerApproval, Plan, PlannedAgent, PlannedCommand, PlannedMcpServer, PlannedRule, PlannedSkill, PlannedTool } from './plan.js'
import { planRule, registryRules, selectedRules, warnInstructionCap, warnRulesTarget } from './rules.js'
import { collectSkillTools, planSkill, registrySkills } from './skills.js'
import { collectTools, planTool } from './tools.js'
import { checkPluginRoutes, targetOf, warnTargetLimits } from './target.js'
import { collectMcpServers, planMcpServer, warnUnscopedServers } from './mcp-servers.js'
import { warnTextOnlyResults } from './rich-results.js'

export type { PlanOptions } from './config.js'
export { SCHEMA_SUPPORT } from './schema-support.js'

/** The registry's agents made by defineAgent, each name once; anything else is reported. */
function registryAgents(registry: RegistryDefinition, findings: Findings): AgentDefinition[] {
  return registryList(registry, registry.agents, AGENTS, findings)
}

const AGENTS: DefinitionList<AgentDefinition> = {
  key: 'agents',
  noun: 'agent',
  is: isAgent,
  made: 'defineAgent({ name, description, prompt, tools })',
  unique: 'each agent becomes one file per harness',
  required: true,
}

// Gemini CLI and Qwen Code fill `${name}` in an agent's prompt from the call's inputs (`query`,
// `today`, ...) and refuse to start the agent when one has no value; such text has no escaped form.
export const PLACEHOLDER = /\$\{(\w+)\}/

/**
 * Reports a `${name}` in the text of an agent's file (its prompt, and its tools' descriptions and
 * schemas, which its tool docs quote) when a selected harness would read it as a placeholder.
 */
function checkPromptPlaceholders(agent: AgentDefinition, planned: PlannedAgent, tools: readonly PlannedTool[], harnesses: readonly Harness[], findings: Findings): void {
  const filling = harnesses.filter((id) => harness(id).fillsPromptPlaceholders)
  if (filling.length === 0) return
  const own = tools.filter((tool) => planned.tools.includes(tool.name))
  const texts = [planned.prompt, ...own.flatMap((tool) => [tool.name, tool.description, JSON.stringify(tool.schema)])]
  const found = texts.map((text) => PLACEHOLDER.exec(text)).find((match) => match !== null)
  if (!found) return
  const titles = filling.map((id) => harness(id).title).join(' and ')
  findings.error(
    'prompt-placeholder',
    `Agent "${planned.name}"'s prompt (or the description of one of its tools) contains \`${found[0]}\`, which ${titles} read${filling.length === 1 ? 's' : ''} as a placeholder to fill in when the agent starts (it fails with "Missing required input parameters: ${found[1]}").`,
    `Write it another way (e.g. \`$${found[1]}\` or \`{${found[1]}}\`), or leave ${filling.join(' and ')} out of the harnesses.`,
    agent.source,
  )
}

/**
 * Two native tools a harness would show the model under one name (Codex makes `-` and `_` alike):
 * the harness would rename one with a hash suffix, and the prompts would name a tool that is not there.
 */
function checkModelNames(config: ResolvedConfig, tools: readonly PlannedTool[], findings: Findings): void {
  if (!config.nativeTools) return
  for (const id of config.harnesses) {
    const { title, modelToolName } = harness(id)
    const seen = new Map<string, PlannedTool>()
    for (const tool of tools.filter((candidate) => candidate.json)) {
      const shown = modelToolName(targetOf(config).shownServerName(id), tool.name)
      const first = seen.get(shown)
      if (!first) {
        seen.set(shown, tool)
        continue
      }
      findings.error(
        'tool-name-collision',
        `Tools "${first.name}" and "${tool.name}" both reach the model as ${shown} in ${title}, which would rename one of them.`,
        `Rename one of the two tools so that their names differ in more than "-" and "_".`,
        tool.source,
      )
    }
  }
}

/**
 * One warning per selected harness that writes agent files but shows every agent every native tool
 * (Codex): an agent given fewer tools than the registry serves is scoped by its prompt alone.
 */
function warnUnscopedTools(registry: RegistryDefinition, config: ResolvedConfig, tools: readonly PlannedTool[], agents: readonly PlannedAgent[], findings: Findings): void {
  if (!config.nativeTools) return
  const served = tools.filter((tool) => tool.json).map((tool) => tool.name)
  for (const id of config.harnesses) {
    const { title, agentFile, scopesToolsPerAgent } = harness(id)
    if (scopesToolsPerAgent || agentFile === null) continue
    const narrower = agents.filter((agent) => served.some((tool) => !agent.tools.includes(tool)))
    if (narrower.length === 0) continue
    const names = narrower.map((agent) => `"${agent.name}"`).join(', ')
    findings.warning(
      'tools-not-scoped',
      `${title} does not scope tools per agent: every ${title} agent is shown all ${served.length} tools of the MCP server, also ${names}, which ${narrower.length === 1 ? 'was' : 'were'} given fewer (the instructions name only an agent's own).`,
      `Accept it, or keep a tool from every ${title} agent with json: false on the tool (bash route only), or leave ${id} out of the config's harnesses.`,
      registry.source,
    )
  }
}

/**
 * One warning per selected harness that has no permission settings to write the config's approval
 * rules into, when the rules decide for a tool it is given natively.
 */
function warnUnwrittenApprovals(registry: RegistryDefinition, config: ResolvedConfig, tools: readonly PlannedTool[], servers: readonly PlannedMcpServer[], findings: Findings): void {
  const decided = [
    ...(config.nativeTools ? tools.filter((tool) => tool.json && tool.approval !== undefined).map((tool) => tool.name) : []),
    ...servers.flatMap((server) => [...(server.approval?.all ? [server.name] : []), ...Object.keys(server.approval?.tools ?? {}).map((tool) => `${server.name}/${tool}`)]),
  ]
  if (decided.length === 0) return
  for (const id of config.harnesses) {
    const { title, approvals } = harness(id)
    if (!('unsupported' in approvals)) continue
    findings.warning(
      'approval-unsupported',
      `Config "${config.config}"'s approval rules cannot reach ${title}: ${approvals.unsupported}. There, ${decided.map((tool) => `"${tool}"`).join(', ')} ${decided.length === 1 ? 'runs' : 'run'} as ${title} decides.`,
      approvals.fix.replaceAll('<server>', config.serverName),
      registry.source,
    )
  }
}

/**
 * A warning per tool whose output schema is not an object while an MCP harness is selected: MCP
 * carries structured output (outputSchema, structuredContent) only as an object, so there the model
 * gets the value as JSON text alone.
 */
function warnOutputNotObject(config: ResolvedConfig, tools: readonly PlannedTool[], sources: ReadonlyMap<string, SourceLocation>, findings: Findings): void {
  if (!config.nativeTools) return
  const overMcp = config.harnesses.filter((id) => harness(id).toolRoute === 'mcp').map((id) => harness(id).title)
  if (overMcp.length === 0) return
  for (const tool of tools) {
    if (!tool.json || tool.output === undefined || tool.output.type === 'object') continue
    const kind = typeof tool.output.type === 'string' ? `of type "${tool.output.type}"` : 'not an object schema'
    findings.warning(
      'tool-output-not-object',
      `Tool "${tool.name}"'s output schema is ${kind}, but MCP carries structured output only as an object: ${overMcp.join(', ')} ${overMcp.length === 1 ? 'gets' : 'get'} the value as JSON text, without the schema.`,
      'Wrap the value in an object (e.g. z.object({ items: z.array(...) })) to give MCP clients structured output, or accept the JSON text.',
      sources.get(tool.name),
    )
  }
}

/** The planned server with what the config's approval rules decide for its tools, where they decide anything. */
function withApproval(server: PlannedMcpServer, approval: McpServerApproval | undefined): PlannedMcpServer {
  return approval ? { ...server, approval } : server
}

/** The planned agent with the names of the MCP servers its tools name, where it names any. */
function withServers(planned: PlannedAgent | undefined, servers: readonly string[]): PlannedAgent | undefined {
  return planned && servers.length > 0 ? { ...planned, mcpServers: [...servers] } : planned
}

/**
 * Turns loaded definitions into a Plan: every name checked, every input schema made one canonical
 * JSON Schema, every problem a diagnostic at its definition. Pure: no I/O (prompt texts come from
 * `loaded.prompts`), no absolute paths in the plan. The plan is absent when there are errors.
 */
export function compilePlan(loaded: LoadedRegistry, options: PlanOptions): { plan?: Plan; diagnostics: Diagnostic[] } {
  const findings = new Findings(options.root)
  const registry = loaded.registry
  const config = resolveConfig(registry, options, findings)
  const rules = approvalRules(config.profile.approval, config.config, registry, findings)
  const agents = registryAgents(registry, findings)
  const collected = collectTools(registry, agents, findings)
  const skills = registrySkills(registry, findings)
  const skillTools = collectSkillTools(skills, registry, collected, findings)
  const servers = collectMcpServers(registry, agents, config, findings)
  checkApprovalNames(rules, config.config, collected.tools, servers.servers.map((server) => server.name), registry, findings)
  const plannedServers = servers.servers
    .map((server) => planMcpServer(server, config, options.root, findings))
    .filter((server): server is PlannedMcpServer => server !== undefined)
    .map((server) => withApproval(server, serverApproval(server.name, rules)))

  const tools: PlannedTool[] = []
  for (const tool of collected.tools) {
    const planned = planTool(tool, config, rules, options.root, findings, loaded.zod)
    if (planned) tools.push(planned)
  }
  const plannedAgents: PlannedAgent[] = []
  const agentPairs: Array<{ definition: AgentDefinition; planned: PlannedAgent }> = []
  for (const agent of agents) {
    const inputs = { prompt: loaded.prompts.get(agent), tools: collected.byAgent.get(agent) ?? [], config, root: options.root }
    const agentServers = servers.byAgent.get(agent) ?? []
    const planned = withServers(planAgent(agent, inputs, findings), agentServers)
    if (!planned) continue
    plannedAgents.push(planned)
    agentPairs.push({ definition: agent, planned })
    checkPromptPlaceholders(agent, planned, tools, config.harnesses, findings)
  }
  checkPluginRoutes(config, tools, agentPairs, findings)

  const hooks = planHooks(registry, config, tools, options.root, findings, loaded.hookDecisions)
  const plannedSkills: PlannedSkill[] = []
  for (const skill of skills) {
    const planned = planSkill(skill, { texts: loaded.prompts, tools: skillTools.get(skill) ?? [], harnesses: config.harnesses, root: options.root }, tools, findings)
    if (planned) plannedSkills.push(planned)
  }
  const plannedCommands: PlannedCommand[] = []
  const commands = registryCommands(registry, findings)
  checkCommandNames(commands, commandFiles(config.harnesses), options.root, findings)
  for (const command of commands) {
    const planned = planCommand(command, { texts: loaded.prompts, agents, skills: plannedSkills, harnesses: config.harnesses, root: options.root }, findings)
    if (planned) plannedCommands.push(planned)
  }
  const instructionRules = selectedRules(registryRules(registry, findings), config, registry, findings)
  const plannedRules: PlannedRule[] = []
  for (const rule of instructionRules) {
    const planned = planRule(rule, { texts: loaded.prompts, harnesses: config.harnesses, root: options.root, target: targetOf(config).kind }, findings)
    if (planned) plannedRules.push(planned)
  }
  warnInstructionCap(plannedRules, config.harnesses, targetOf(config).kind, new Map(instructionRules.map((rule) => [rule.name, rule])), findings)
  warnRulesTarget(plannedRules, config, registry, findings)

  checkModelNames(config, tools, findings)
  warnUnscopedTools(registry, config, tools, plannedAgents, findings)
  warnUnwrittenApprovals(registry, config, tools, plannedServers, findings)
  warnUnscopedServers(registry, config, plannedServers, plannedAgents, findings)
  warnOutputNotObject(config, tools, new Map(collected.tools.map((tool) => [tool.name, tool.source])), findings)
  const returns = new Map(collected.tools.flatMap((tool) => (loaded.toolResults.has(tool) ? [[tool.name, loaded.toolResults.get(tool)!] as const] : [])))
  warnTextOnlyResults(registry, config, tools, returns, findings)
  const ruledServers = (rule: 'allow' | 'ask') => plannedServers.filter((server) => server.approval?.all === rule || Object.values(server.approval?.tools ?? {}).includes(rule)).length
  const ruled = (rule: 'allow' | 'ask') => tools.filter((tool) => tool.json && tool.approval === rule).length + ruledServers(rule)
  const native = config.nativeTools ? tools.filter((tool) => tool.json).length : 0
  const parts = { agents: plannedAgents.length, hooks: hooks.length, skills: plannedSkills.length, commands: plannedCommands.length, allow: ruled('allow'), ask: ruled('ask'), tools: native, mcpServers: plannedServers.length }
  warnTargetLimits(registry, config, parts, findings)
  const diagnostics = withLevels(config.diagnosticLevels, findings.diagnostics)
  if (hasErrors(diagnostics)) return { diagnostics }
  const { profile: _profile, ...settings } = config
  const extras = {
    ...(plannedSkills.length > 0 && { skills: plannedSkills }),
    ...(plannedCommands.length > 0 && { commands: plannedCommands }),
    ...(plannedServers.length > 0 && { mcpServers: plannedServers }),
    ...(plannedRules.length > 0 && { rules: plannedRules }),
  }
  return { plan: { ...settings, tools, agents: plannedAgents, hooks, ...extras }, diagnostics }
}
