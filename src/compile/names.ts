import { type Harness, HARNESSES } from '../define/types.js'
import { harness } from './harnesses/index.js'

/*
 * One naming rule per kind of name, chosen so that the same name is valid in every target at once
 * (see reference/harness-formats.md):
 *
 * Tools: /^[a-z][a-z0-9_-]*$/, at most 64 - "mcp____".length - serverName.length characters.
 *  - MCP tool names (Claude, Codex, pi) must match ^[A-Za-z0-9_-]{1,64}$, and Codex caps the name the
 *    model sees, `mcp__<server>__<tool>` with `-` as `_`, at 64 (longer names get a hash suffix): 48 with
 *    `oac-tools`. Names that differ only in `-` and `_` are one name to Codex (`tool-name-collision`).
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
 * Hooks: as tools (a hook names its script, `scripts/hooks/<hook>.mjs`), at most 64 characters.
 *
 * All: not a Windows device name (`con`, `nul`, `com1`...), which cannot be a file name there.
 *
 * MCP server name: /^[A-Za-z0-9_-]+$/ (Claude, Codex TOML bare key, pi), short enough to leave tool
 * names room under Codex's 64-character cap, plus what a selected harness's description adds.
 *
 * The caps come from each harness's description (`toolNameCap`, src/compile/harnesses/).
 */

const TOOL_NAME = /^[a-z][a-z0-9_-]*$/
const AGENT_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
const SERVER_NAME = /^[A-Za-z0-9_-]+$/
/** A skill's, a command's and a plugin's name: the Agent Skills format's, and Claude Code's for a plugin. */
export const KEBAB_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
/** The most characters of an agent's, a skill's, a command's or a plugin's name. */
export const NAME_CAP = 64
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/

/** The harness whose cap on the name its model sees leaves tool names the least room, and that room. */
function tightestCap(serverName: string): { id: Harness; room: number } | undefined {
  let tightest: { id: Harness; room: number } | undefined
  for (const id of HARNESSES) {
    const cap = harness(id).toolNameCap
    if (!cap) continue
    const room = cap.limit - cap.name(serverName, '').length
    if (!tightest || room < tightest.room) tightest = { id, room }
  }
  return tightest
}

/** The longest tool name that keeps the name every harness's model sees within that harness's cap. */
export function maxToolNameLength(serverName: string): number {
  return tightestCap(serverName)?.room ?? Number.POSITIVE_INFINITY
}

/** Why `name` cannot be a tool name, or undefined when it can. */
export function toolNameProblem(name: string, serverName: string): string | undefined {
  if (!TOOL_NAME.test(name)) return 'must start with a lowercase letter and contain only lowercase letters, digits, "_" and "-"'
  const tightest = tightestCap(serverName)
  if (tightest && name.length > tightest.room) {
    const { title, toolNameCap } = harness(tightest.id)
    return `is ${name.length} characters; ${title} shows it as ${toolNameCap!.name(serverName, name)}, which must stay within ${toolNameCap!.limit} (so at most ${tightest.room} here)`
  }
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

/** Why `name` cannot name a skill's folder (or a command), or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  if (!KEBAB_NAME.test(name)) return 'must be lowercase letters and digits, in words joined by single hyphens (no hyphen first or last)'
  if (name.length > NAME_CAP) return `is ${name.length} characters; at most ${NAME_CAP}`
  if (WINDOWS_DEVICE.test(name)) return 'is a Windows device name, which cannot be a folder name there'
  return undefined
}

/** Why `name` cannot be a hook name (it names its script, `scripts/hooks/<hook>.mjs`), or undefined when it can. */
export function hookNameProblem(name: string): string | undefined {
  if (!TOOL_NAME.test(name)) return 'must start with a lowercase letter and contain only lowercase letters, digits, "_" and "-"'
  if (name.length > NAME_CAP) return `is ${name.length} characters; at most ${NAME_CAP}`
  if (WINDOWS_DEVICE.test(name)) return 'is a Windows device name, which cannot be a file name there'
  return undefined
}

/** Why `name` cannot be the MCP server's name for `harnesses`, or undefined when it can. */
export function serverNameProblem(name: string, harnesses: readonly Harness[]): string | undefined {
  if (!SERVER_NAME.test(name)) return 'must contain only letters, digits, "_" and "-"'
  const tightest = tightestCap(name)
  if (tightest && tightest.room < 1) {
    const { title, toolNameCap } = harness(tightest.id)
    return `is ${name.length} characters, which leaves no room for tool names under ${title}'s ${toolNameCap!.limit}-character cap`
  }
  for (const id of harnesses) {
    const problem = harness(id).serverNameProblem?.(name)
    if (problem) return problem
  }
  return undefined
}

/** The harnesses (among `harnesses`) that have a built-in tool named `name`. */
export function builtinCollisions(name: string, harnesses: readonly Harness[]): Harness[] {
  return harnesses.filter((id) => harness(id).builtinTools.includes(name))
}

/** True when some harness, selected or not, has a built-in tool named `name`. */
export function isBuiltinAnywhere(name: string): boolean {
  return HARNESSES.some((id) => harness(id).builtinTools.includes(name))
}
