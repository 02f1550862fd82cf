import { copilot } from '../compile/harnesses/copilot.js'
import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { VSCODE_ENTRY } from '../compile/harnesses/mcp-formats.js'
import { mcpServerEntry, ourServer } from './mcp-servers.js'
import { agentAllowList } from './allow-list.js'
import { agentToolFields } from './mcp-scope.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { renderAgentPrompt } from './codegen/prompt-docs.js'
import { mcpJsonFile, servesMcp } from './mcp-tools.js'
import type { OutputFile } from './types.js'

/**
 * GitHub Copilot (the CLI, VS Code and the cloud agent): one `.github/agents/<agent>.agent.md` per
 * agent, whose `tools` list MCP tools as `<server>/<tool>` (the model sees `<server>-<tool>`). The
 * file has the basename of the `.claude/agents/<agent>.md` copy, which Copilot also reads and which it
 * then ignores. The server entry goes into `.mcp.json`, which the CLI reads (the Claude Code emitter
 * writes the same entry when Claude is selected too), and into VS Code's `.vscode/mcp.json`.
 */
export function emitCopilot(plan: Plan): OutputFile[] {
  const files: OutputFile[] = []
  if (servesMcp(plan, 'copilot')) {
    if (!plan.harnesses.includes('claude')) files.push(mcpJsonFile(plan))
    files.push({ kind: 'merge', path: '.vscode/mcp.json', format: 'json', entries: [{ keyPath: ['servers', plan.serverName], value: vscodeServerEntry(plan) }] })
  }
  for (const agent of plan.agents) {
    files.push({ kind: 'owned', path: copilot.agentFile(agent.name), content: copilotAgentMarkdown(plan, agent) })
  }
  return files
}

/**
 * VS Code's entry: `servers` (not `mcpServers`), `type: "stdio"` required, variables as `${env:VAR}`.
 * VS Code starts servers in the workspace folder, which `cwd` states; the launcher walks up from it.
 */
function vscodeServerEntry(plan: Plan): { [key: string]: JsonValue } {
  return mcpServerEntry(VSCODE_ENTRY, ourServer(plan), { cwd: '${workspaceFolder}' })
}

/** An agent's Copilot agent file (`<agent>.agent.md`): its tools as `<server>/<tool>`, its model, its prompt. */
export function copilotAgentMarkdown(plan: Plan, agent: PlannedAgent): string {
  const tools = agentAllowList(plan, agent, 'copilot', 'execute', (tool) => `${plan.serverName}/${tool}`)
  const frontmatter: { [key: string]: JsonValue } = {
    name: agent.name,
    description: agent.description,
    ...agentToolFields(plan, agent, 'copilot', tools),
    ...(agent.model.copilot !== undefined ? { model: agent.model.copilot } : {}),
    // Copilot warns about, and skips, frontmatter keys it does not know: `harness.copilot` passes as given.
    ...(agent.harness.copilot ?? {}),
  }
  return markdownWithFrontmatter(frontmatter, renderAgentPrompt(plan, agent, 'copilot'))
}
