import type { Harness } from '../define/types.js'

/*
 * One naming rule per kind of name, chosen so that the same name is valid in every target at once
 * (see reference/harness-formats.md):
 *
 * Tools: /^[a-z][a-z0-9_-]*$/, at most 64 - "mcp____".length - serverName.length characters.
 *  - MCP tool names (Claude, Codex, pi) must match ^[A-Za-z0-9_-]{1,64}$, and Codex caps the name the
 *    model sees, `mcp__<server>__<tool>`, at 64 (longer names get a hash suffix): 48 with `oac-tools`.
 *  - lowercase: omp lowercases MCP tool names, and the tool is also a file name (`scripts/<tool>.mjs`,
 *    `.opencode/tool/<tool>.ts`, `.omp/tools/<tool>/`) that must not clash on case-insensitive disks.
 *  - a letter first: Gemini-family providers require it of function names, and a leading `-` or `_`
 *    reads as a flag or a hidden file.
 *  - `_` and `-` are both safe: TOML bare keys (Codex `enabled_tools`, `tools.<tool>`) allow them.
 *
 * Agents: /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, at most 64 characters.
 *  - Claude subagent names are lowercase words joined by hyphens; opencode and Codex name agents by
 *    their file (`.opencode/agent/<agent>.md`, `.codex/agents/<agent>.toml`).
 *
 * Both: not a Windows device name (`con`, `nul`, `com1`...), which cannot be a file name there.
 *
 * MCP server name: /^[A-Za-z0-9_-]+$/ (Claude, Codex TOML bare key, pi), short enough to leave tool
 * names room under Codex's 64-character cap.
 */

const TOOL_NAME = /^[a-z][a-z0-9_-]*$/
const AGENT_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
const SERVER_NAME = /^[A-Za-z0-9_-]+$/
const NAME_CAP = 64
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/

/** The longest tool name that keeps `mcp__<server>__<tool>` within Codex's cap. */
export function maxToolNameLength(serverName: string): number {
  return NAME_CAP - `mcp__${serverName}__`.length
}

/** Why `name` cannot be a tool name, or undefined when it can. */
export function toolNameProblem(name: string, serverName: string): string | undefined {
  if (!TOOL_NAME.test(name)) return 'must start with a lowercase letter and contain only lowercase letters, digits, "_" and "-"'
  const cap = maxToolNameLength(serverName)
  if (name.length > cap) return `is ${name.length} characters; Codex shows it as mcp__${serverName}__${name}, which must stay within ${NAME_CAP} (so at most ${cap} here)`
  if (WINDOWS_DEVICE.test(name)) return 'is a Windows device name, which cannot be a file name there'
  return undefined
}

/** Why `name` cannot be an agent name, or undefined when it can. */
export function agentNameProblem(name: string): string | undefined {
  if (!AGENT_NAME.test(name)) return 'must be lowercase words of letters and digits joined by single hyphens, starting with a letter'
  if (name.length > NAME_CAP) return `is ${name.length} characters; at most ${NAME_CAP}`
  if (WINDOWS_DEVICE.test(name)) return 'is a Windows device name, which cannot be a file name there'
  return undefined
}

/** Why `name` cannot be the MCP server's name, or undefined when it can. */
export function serverNameProblem(name: string): string | undefined {
  if (!SERVER_NAME.test(name)) return 'must contain only letters, digits, "_" and "-"'
  if (maxToolNameLength(name) < 1) return `is ${name.length} characters, which leaves no room for tool names under Codex's ${NAME_CAP}-character cap`
  return undefined
}

/**
 * Built-in tools of the harnesses whose native tool forms share one namespace with them. Claude and
 * Codex reach our tools through MCP (`mcp__<server>__<tool>`), so nothing there can collide.
 */
export const BUILTIN_TOOLS: Partial<Record<Harness, readonly string[]>> = {
  // opencode 1.x tool ids; a custom tool with one of these names takes the built-in's place.
  opencode: [
    'apply_patch', 'bash', 'batch', 'codesearch', 'edit', 'glob', 'grep', 'invalid', 'list', 'lsp', 'multiedit',
    'patch', 'plan_enter', 'plan_exit', 'question', 'read', 'skill', 'task', 'todoread', 'todowrite', 'webfetch',
    'websearch', 'write',
  ],
  // Kilo 7.7.7's tool ids (its agents' tool maps), with opencode's: its tools share their namespace.
  kilo: [
    'apply_patch', 'background_process', 'bash', 'batch', 'board_post', 'board_read', 'cancel_wakeup', 'codesearch', 'edit',
    'glob', 'goal_report', 'grep', 'invalid', 'kilo_local_recall', 'list', 'lsp', 'multiedit', 'patch', 'plan_enter',
    'plan_exit', 'question', 'read', 'schedule_wakeup', 'skill', 'suggest', 'task', 'todoread', 'todowrite', 'webfetch',
    'websearch', 'write',
  ],
  // pi: an extension tool with one of these names silently replaces the built-in.
  pi: ['bash', 'edit', 'find', 'grep', 'ls', 'powershell', 'read', 'write'],
  // omp 18.2.3 rejects a custom tool with one of these names ("conflicts with existing tool").
  omp: [
    'ast_edit', 'bash', 'debug', 'edit', 'eval', 'glob', 'goal', 'grep', 'hub', 'init_experiment', 'log_experiment',
    'lsp', 'read', 'run_experiment', 'task', 'todo', 'update_notes', 'web_search', 'write',
  ],
}

/** The harnesses (among `harnesses`) that have a built-in tool named `name`. */
export function builtinCollisions(name: string, harnesses: readonly Harness[]): Harness[] {
  return harnesses.filter((harness) => BUILTIN_TOOLS[harness]?.includes(name))
}
