import type { McpConfigFile, McpEntryFormat } from './types.js'

/*
 * The MCP configuration formats of the harnesses, as data (docs/mcp-servers.md has the evidence from
 * each pinned CLI). Several harnesses share one: Claude Code's `.mcp.json`, which the Copilot CLI also
 * reads; Gemini CLI's settings, which Qwen Code forked; opencode's config, which Kilo forked.
 */

const dollarBraces = (name: string) => `\${${name}}`

/** `.mcp.json` (Claude Code, the Copilot CLI): `type: "http"` for a remote server, `${NAME}` filled everywhere. */
export const MCP_JSON_ENTRY: McpEntryFormat = { stdio: { envKey: 'env' }, http: { type: 'http', urlKey: 'url' }, reference: dollarBraces }

/** Gemini CLI's and Qwen Code's settings: streamable HTTP is `httpUrl` (Qwen Code reads `url` as SSE), `${NAME}` filled everywhere. */
export const GEMINI_ENTRY: McpEntryFormat = { stdio: { envKey: 'env' }, http: { urlKey: 'httpUrl' }, reference: dollarBraces }

/** Codex's `[mcp_servers.<name>]`: no reference in a string; variables by name in its own keys. */
export const CODEX_ENTRY: McpEntryFormat = {
  stdio: { envKey: 'env' },
  http: { urlKey: 'url' },
  reference: 'codex',
  // A tool's own `approval_mode` over the server's `default_tools_approval_mode` (0.171's `RawMcpServerConfig`).
  approvals: { server: 'default_tools_approval_mode', tool: (tool) => ['tools', tool, 'approval_mode'], modes: { allow: 'approve', ask: 'prompt' } },
}

/** opencode's `mcp`: `local` with the command as one list and `environment`, `remote`; `{env:NAME}` filled anywhere in the file. */
export const OPENCODE_ENTRY: McpEntryFormat = { stdio: { type: 'local', commandList: true, envKey: 'environment' }, http: { type: 'remote', urlKey: 'url' }, reference: (name) => `{env:${name}}` }

/** VS Code's `.vscode/mcp.json` `servers` (docs only): `type` required, `${env:NAME}`. */
export const VSCODE_ENTRY: McpEntryFormat = { stdio: { type: 'stdio', envKey: 'env' }, http: { type: 'http', urlKey: 'url' }, reference: (name) => `\${env:${name}}` }

/** The project's `.mcp.json`. */
export const MCP_JSON_FILE: McpConfigFile = { path: '.mcp.json', format: 'json', key: ['mcpServers'], entry: MCP_JSON_ENTRY }
