import type { EnvReference, McpServerDefinition, McpValue } from '../define/mcp-servers.js'
import type { AgentDefinition, Harness, RegistryDefinition } from '../define/types.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import { literalSecretKind } from '../secrets.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { isMcpServer } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import type { McpReferencePlace } from './harnesses/types.js'
import { serverNameProblem } from './names.js'
import { addOnce } from './registry-lists.js'
import type { PlannedAgent, PlannedMcpServer, PlannedMcpValue } from './plan.js'
import { plannedSource } from './source.js'
import { type Target, targetOf } from './target.js'

/*
 * MCP servers someone else wrote (`defineMcpServer`): gathered from the registry and its agents, picked
 * by the config, and checked, so that every harness's configuration can be written from the plan. A
 * secret enters only as `fromEnv('NAME')`, kept in the plan as `{ env: NAME }`: its value is never read.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/** An HTTP header name (RFC 9110 `token`). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export interface CollectedMcpServers {
  /** Every server the config picks: the registry's in order, then those agents bring, in order of first appearance. */
  servers: McpServerDefinition[]
  /** The names of each agent's servers (among `servers`), without repeats. */
  byAgent: Map<AgentDefinition, string[]>
}

/**
 * Gathers the servers of the registry and of its agents' `tools`. One definition reached twice is one
 * server; two definitions with one name are an error. The config's `mcpServers` picks some by name.
 */
export function collectMcpServers(registry: RegistryDefinition, agents: readonly AgentDefinition[], config: ResolvedConfig, findings: Findings): CollectedMcpServers {
  const all: McpServerDefinition[] = []
  const add = (server: McpServerDefinition): void =>
    addOnce(all, server, (twin) =>
      findings.error(
        'mcp-server-duplicate',
        `Two MCP servers are named "${server.name}": this one and the one at ${findings.where(twin.source)}.`,
        'Rename one of them, or import and reuse the same definition: each is one entry of every harness\'s MCP configuration.',
        server.source,
      ),
    )
  const listed: unknown = registry.mcpServers
  if (listed !== undefined && !Array.isArray(listed)) {
    findings.error('definition-invalid', "The registry's mcpServers is not a list.", 'Pass mcpServers: [defineMcpServer({ ... }), ...] to defineRegistry.', registry.source)
  }
  ;(Array.isArray(listed) ? listed : []).forEach((value: unknown, i) => {
    if (isMcpServer(value)) add(value)
    else findings.error('definition-invalid', `registry.mcpServers[${i}] is not an MCP server made by defineMcpServer.`, "Create servers with defineMcpServer({ name, command } or { name, url }) from 'unplugin-oac'.", registry.source)
  })
  for (const agent of agents) (Array.isArray(agent.tools) ? agent.tools : []).filter(isMcpServer).forEach(add)

  const picked = pickedServers(all, config, registry, findings)
  const byAgent = new Map<AgentDefinition, string[]>()
  for (const agent of agents) {
    const own = (Array.isArray(agent.tools) ? agent.tools : []).filter(isMcpServer).filter((server) => picked.includes(server))
    byAgent.set(agent, [...new Set(own.map((server) => server.name))])
  }
  return { servers: picked, byAgent }
}

/** The servers the config picks by name (all of them when it names none); unknown names are reported. */
function pickedServers(servers: McpServerDefinition[], config: ResolvedConfig, registry: RegistryDefinition, findings: Findings): McpServerDefinition[] {
  const names: unknown = config.profile.mcpServers
  if (names === undefined) return servers
  const known = servers.map((server) => server.name).join(', ') || '(the registry has no MCP servers)'
  if (!Array.isArray(names)) {
    findings.error('config-mcp-server-unknown', `Config "${config.config}"'s mcpServers must be a list of server names.`, `List some of: ${known}.`, registry.source)
    return []
  }
  for (const name of names.filter((name) => !servers.some((server) => server.name === name))) {
    findings.error('config-mcp-server-unknown', `Config "${config.config}" names the MCP server "${String(name)}", which neither the registry nor its agents define.`, `Use some of: ${known}; or add the server to defineRegistry({ mcpServers }).`, registry.source)
  }
  return servers.filter((server) => names.includes(server.name))
}

function isEnvReference(value: unknown): value is EnvReference {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'oac:env'
}

/** Checks one server and turns it into its planned form (undefined when it cannot be planned). */
export function planMcpServer(server: McpServerDefinition, config: ResolvedConfig, root: string, findings: Findings): PlannedMcpServer | undefined {
  let ok = true
  const label = `MCP server "${server.name}"`
  const problem = (code: DiagnosticCode, message: string, fix: string) => {
    findings.error(code, message, fix, server.source)
    ok = false
  }
  if (typeof server.name !== 'string' || server.name === '') {
    problem('mcp-server-name-invalid', 'An MCP server has no name.', 'Give it a name of letters, digits, "_" and "-", e.g. name: "github".')
    return undefined
  }
  const nameProblem = serverNameProblem(server.name, config.harnesses)
  if (nameProblem) problem('mcp-server-name-invalid', `The MCP server name "${server.name}" ${nameProblem}.`, 'Rename the server to letters, digits and "-", e.g. "github" or "issue-tracker".')
  if (server.name === config.serverName) {
    problem('mcp-server-name-ours', `${label} has the name of unplugin-oac's own server, which serves this registry's tools.`, 'Rename the server, or give ours another name (the plugin option or --server-name).')
  }
  if (server.description !== undefined && (typeof server.description !== 'string' || server.description.trim() === '')) {
    problem('mcp-server-field-invalid', `${label}'s description is not a sentence.`, 'Say what the server offers, or leave description out.')
  }

  /** A value's planned form; a reference is checked, a literal that looks like a secret is refused. */
  const value = (raw: unknown, field: string, name: string | undefined): PlannedMcpValue | undefined => {
    if (isEnvReference(raw)) {
      if (typeof raw.name === 'string' && ENV_NAME.test(raw.name)) return { env: raw.name }
      problem('mcp-env-name-invalid', `${label}'s ${field} takes fromEnv(${JSON.stringify(raw.name)}), which is not an environment variable's name.`, 'Name the variable with letters, digits and "_", not starting with a digit, e.g. fromEnv("GITHUB_TOKEN").')
      return undefined
    }
    if (typeof raw !== 'string') {
      problem('mcp-server-field-invalid', `${label}'s ${field} is neither text nor fromEnv(...).`, 'Write the value as text, or as fromEnv("NAME") for a value from the environment.')
      return undefined
    }
    const secret = literalSecretKind(name, raw)
    if (secret) {
      problem(
        'mcp-server-secret-literal',
        `${label}'s ${field} holds a literal that looks like ${secret}; it would be written into every harness's configuration, which gets committed and shared.`,
        `Take it from the environment: ${name === undefined ? 'fromEnv("NAME")' : `${JSON.stringify(name)}: fromEnv("NAME")`}, and set NAME where the harness runs. If it is not a secret, change the value so it does not look like one.`,
      )
      return undefined
    }
    return raw
  }
  const record = (raw: unknown, field: string, keyPattern: RegExp, keyNoun: string): Record<string, PlannedMcpValue> => {
    const planned: Record<string, PlannedMcpValue> = {}
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problem('mcp-server-field-invalid', `${label}'s ${field} is not an object of names and values.`, `Write ${field}: { NAME: 'value' or fromEnv('NAME') }.`)
      return planned
    }
    for (const [key, item] of Object.entries(raw)) {
      if (!keyPattern.test(key)) problem('mcp-server-field-invalid', `${label}'s ${field} has the key "${key}", which is not ${keyNoun}.`, `Use ${keyNoun} as the key.`)
      const checked = value(item, `${field}.${key}`, key)
      if (checked !== undefined) planned[key] = checked
    }
    return planned
  }

  const hasCommand = server.command !== undefined
  const hasUrl = server.url !== undefined
  if (hasCommand === hasUrl) {
    problem(
      'mcp-server-transport',
      `${label} has ${hasCommand ? 'both a command and a url' : 'neither a command nor a url'}.`,
      'Give a stdio server its command (and args, env), or a streamable-HTTP server its url (and bearerToken, headers), not both.',
    )
    return undefined
  }
  const base = { name: server.name, ...(server.description !== undefined && { description: server.description }), source: plannedSource(root, server.source) }
  let planned: PlannedMcpServer
  if (hasCommand) {
    if (typeof server.command !== 'string' || server.command.trim() === '') problem('mcp-server-field-invalid', `${label}'s command is not a program's name.`, "Name the program that starts it, e.g. command: 'npx'.")
    const unused = (['bearerToken', 'headers'] as const).filter((field) => field === 'bearerToken' ? server.bearerToken !== undefined : Object.keys(server.headers ?? {}).length > 0)
    for (const field of unused) problem('mcp-server-field-unused', `${label} is a stdio server (it has a command), so its ${field} would not be sent.`, `Remove ${field}, or give the server a url instead of a command.`)
    const args = Array.isArray(server.args) ? server.args : []
    if (!Array.isArray(server.args)) problem('mcp-server-field-invalid', `${label}'s args is not a list.`, "Write args: ['--flag', fromEnv('NAME'), ...].")
    planned = {
      ...base,
      transport: 'stdio',
      command: String(server.command),
      args: args.map((arg: McpValue, i) => value(arg, `args[${i}]`, undefined)).filter((arg): arg is PlannedMcpValue => arg !== undefined),
      env: record(server.env ?? {}, 'env', ENV_NAME, "an environment variable's name"),
    }
  } else {
    const url = typeof server.url === 'string' && URL.canParse(server.url) ? new URL(server.url) : undefined
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) problem('mcp-server-url-invalid', `${label}'s url ${JSON.stringify(server.url)} is not an http or https URL.`, "Write the server's streamable-HTTP endpoint, e.g. url: 'https://example.com/mcp'.")
    else if (url.username !== '' || url.password !== '') problem('mcp-server-secret-literal', `${label}'s url holds a user name or password; it would be written into every harness's configuration.`, 'Remove them from the url, and send the credential as bearerToken: fromEnv("NAME").')
    const unused = (['args', 'env'] as const).filter((field) => (field === 'args' ? (server.args ?? []).length > 0 : Object.keys(server.env ?? {}).length > 0))
    for (const field of unused) problem('mcp-server-field-unused', `${label} is an HTTP server (it has a url), so its ${field} would not be used.`, `Remove ${field}, or give the server a command instead of a url.`)
    if (server.bearerToken !== undefined && !isEnvReference(server.bearerToken)) {
      problem('mcp-server-secret-literal', `${label}'s bearerToken is not fromEnv(...): a token written here would be written into every harness's configuration.`, "Write bearerToken: fromEnv('NAME'), and set NAME where the harness runs.")
    }
    const headers = record(server.headers ?? {}, 'headers', HEADER_NAME, "an HTTP header's name")
    const authorization = Object.keys(headers).find((header) => header.toLowerCase() === 'authorization')
    if (server.bearerToken !== undefined && authorization) problem('mcp-server-field-invalid', `${label} has both a bearerToken and an ${authorization} header.`, 'Keep one of them: bearerToken sends Authorization: Bearer <token>.')
    const token = server.bearerToken !== undefined ? value(server.bearerToken, 'bearerToken', undefined) : undefined
    planned = { ...base, transport: 'http', url: String(server.url), ...(typeof token === 'object' && { bearerTokenEnv: token.env }), headers }
  }
  if (!ok) return undefined
  warnLeftOut(planned, server, config, findings)
  warnBridged(planned, server, config, findings)
  return planned
}

/**
 * What our bridge (src/runtime/mcp-bridge.ts) cannot carry to a harness whose MCP route it is: a server
 * name that leaves no room for its tools' names within the harness's limit, and an image, where the
 * harness's tools return text.
 */
function warnBridged(planned: PlannedMcpServer, server: McpServerDefinition, config: ResolvedConfig, findings: Findings): void {
  for (const id of config.harnesses) {
    const { title, mcp } = harness(id)
    if (!mcpServerBridged(planned, id, targetOf(config)) || !mcp.bridge) continue
    // `<server>_` and at least a few characters of each tool's name.
    if (planned.name.length + 1 + 8 > mcp.bridge.nameMax) {
      findings.warning(
        'mcp-bridge-name-long',
        `MCP server "${planned.name}" is ${planned.name.length} characters long: ${title} shows its tools as "${planned.name}_<tool>", cut to ${mcp.bridge.nameMax} characters, so tools whose names differ only past that are left out (all but the first).`,
        `Give the server a shorter name, or leave ${id} out of the config's harnesses.`,
        server.source,
      )
    }
    if (mcp.bridge.textOnly !== undefined) {
      findings.warning(
        'mcp-bridge-text-only',
        `${title} ${mcp.bridge.textOnly}, for MCP server "${planned.name}" too.`,
        `If the server's tools return images the model must see, leave ${id} out of the config's harnesses; otherwise turn this warning off in the config's diagnostics.`,
        server.source,
      )
    }
  }
}

/** The places of a server's definition that hold a reference (`fromEnv`), in the words of the harness descriptions. */
function referencePlaces(server: PlannedMcpServer): McpReferencePlace[] {
  const places = new Set<McpReferencePlace>()
  if (server.transport === 'stdio') {
    if (server.args.some((arg) => typeof arg === 'object')) places.add('argument')
    if (Object.entries(server.env).some(([key, item]) => typeof item === 'object' && item.env !== key)) places.add('renamedEnv')
  } else if (server.bearerTokenEnv !== undefined || Object.values(server.headers).some((item) => typeof item === 'object')) {
    places.add('header')
  }
  return [...places]
}

/**
 * Why the harness's configuration cannot carry the server in this target (a reference it does not fill
 * there), or undefined when it can. Such a server is left out of that harness's configuration.
 */
export function mcpServerLeftOut(server: PlannedMcpServer, id: Harness, target: Target): string | undefined {
  const unfilled = harness(id).mcp.unfilled ?? {}
  const place = referencePlaces(server).find((candidate) => {
    const limit = unfilled[candidate]
    return limit !== undefined && !(limit.project && target.kind !== 'project')
  })
  return place === undefined ? undefined : unfilled[place]!.says
}

/**
 * True when our bridge gives harness `id` the server's tools in this target: every server, where the
 * bridge is its MCP route; one its project configuration cannot carry, where its `unfilledRoute` says
 * so (in a project alone: a home's configuration and a plugin folder's module carry such a server).
 */
export function mcpServerBridged(server: PlannedMcpServer, id: Harness, target: Target): boolean {
  const { mcp } = harness(id)
  if (mcp.route === 'bridge') return true
  return mcp.unfilledRoute === 'bridge' && target.kind === 'project' && mcpServerLeftOut(server, id, target) !== undefined
}

/** True when harness `id` is given the server in this target: in its own configuration, or through our bridge. */
export function mcpServerCarried(server: PlannedMcpServer, id: Harness, target: Target): boolean {
  return mcpServerLeftOut(server, id, target) === undefined || mcpServerBridged(server, id, target)
}

/** What a team can do about a reference the harness does not fill anywhere. */
const PLACE_FIX: Record<McpReferencePlace, string> = {
  argument: "Pass the value in env instead, under the variable's own name, if the server reads it there",
  renamedEnv: "Name the variable as the server reads it (env: { GITHUB_TOKEN: fromEnv('GITHUB_TOKEN') })",
  header: "Leave the header to the harness's users' own configuration",
}

/** One warning per selected harness that cannot carry the server (see `mcpServerLeftOut`). */
function warnLeftOut(planned: PlannedMcpServer, server: McpServerDefinition, config: ResolvedConfig, findings: Findings): void {
  for (const id of config.harnesses) {
    if (mcpServerCarried(planned, id, targetOf(config))) continue
    const says = mcpServerLeftOut(planned, id, targetOf(config))!
    const place = referencePlaces(planned).find((candidate) => harness(id).mcp.unfilled?.[candidate]?.says === says)!
    const { title, mcp } = harness(id)
    const fix = mcp.unfilled?.[place]?.project ? `Install for the user instead (--scope user), whose ${title} configuration takes the reference` : PLACE_FIX[place]
    findings.warning(
      'mcp-server-left-out',
      `${title} ${says}: MCP server "${planned.name}" is left out of ${title}'s configuration.`,
      `${fix}, or leave ${id} out of the config's harnesses.`,
      server.source,
    )
  }
}

/**
 * One warning per selected harness that writes agent files but cannot show an agent only the servers it
 * was given (Codex gives every agent the session's servers; the bridge harnesses register every
 * server's tools for all), when some agent was not given one of the servers the harness is given.
 */
export function warnUnscopedServers(registry: RegistryDefinition, config: ResolvedConfig, servers: readonly PlannedMcpServer[], agents: readonly PlannedAgent[], findings: Findings): void {
  for (const id of config.harnesses) {
    const { title, agentFile, scopesToolsPerAgent, mcp } = harness(id)
    const carried = servers.filter((server) => mcpServerCarried(server, id, targetOf(config))).map((server) => server.name)
    if (agentFile !== null && scopesToolsPerAgent && mcp.exactAgentLists) warnExactLists(registry, id, carried, agents, findings)
    if (agentFile === null || (scopesToolsPerAgent && mcp.toolNames)) continue
    const narrower = agents.filter((agent) => carried.some((server) => !(agent.mcpServers ?? []).includes(server)))
    if (narrower.length === 0) continue
    findings.warning(
      'mcp-servers-not-scoped',
      `${title} does not scope MCP servers per agent: every ${title} agent is shown the tools of ${carried.map((server) => `"${server}"`).join(', ')}, also ${narrower.map((agent) => `"${agent.name}"`).join(', ')}, which ${narrower.length === 1 ? 'was' : 'were'} not given all of them.`,
      `Accept it (an agent's instructions name only its own servers), or leave ${id} out of the config's harnesses.`,
      registry.source,
    )
  }
}

/**
 * Where an agent's tool list takes exact names alone (`exactAgentLists`: Qwen Code), an agent given a
 * server keeps its MCP tools scoped by the deny list but has no list of tools: one warning naming the
 * agents that are therefore shown every built-in tool.
 */
function warnExactLists(registry: RegistryDefinition, id: Harness, carried: readonly string[], agents: readonly PlannedAgent[], findings: Findings): void {
  const { title, mcp } = harness(id)
  const given = agents.filter((agent) => (agent.mcpServers ?? []).some((server) => carried.includes(server)))
  if (given.length === 0) return
  findings.warning(
    'mcp-servers-agent-builtins',
    `${title}'s agent files list tools by their exact names alone, and an MCP server's are not known before it runs: ${given.map((agent) => `"${agent.name}"`).join(', ')}, given a server, ${given.length === 1 ? 'gets' : 'get'} no list of tools but \`${mcp.agentDenyList}\` (the servers and tools of ours not given), so ${given.length === 1 ? 'it is' : 'they are'} shown every built-in tool of ${title}.`,
    `Accept it, or leave ${id} out of the config's harnesses where such an agent must not have the built-ins.`,
    registry.source,
  )
}
