import { join } from 'node:path'
import { listedStatus } from './doctor-steps.js'
import { MCP_JSON_FILE } from './mcp-formats.js'
import { CLAUDE_COMMAND, CLAUDE_SYNTAX, IMPORT_SYNTAX } from './text-syntax.js'
import type { HarnessDescription, ScopedRules } from './types.js'

/** Its rules folder, in a project and in the home alike: a rule with `paths:` loads once a matching file is read. */
const CLAUDE_RULES: ScopedRules = { file: (rule) => `.claude/rules/${rule}.md`, key: 'paths', form: 'list' }

/** Frontmatter keys that come from the agent definition itself, so `harness.claude` may not set them. */
const OWN_FRONTMATTER_KEYS: Record<string, string> = {
  name: 'the agent `name`',
  description: 'the agent `description`',
  tools: 'the agent `tools` and `builtinTools.claude`',
  model: 'the agent `model` (or the config `models`)',
  hooks: 'the agent `hooks`',
}

/** Claude Code: our tools over MCP (`.mcp.json`), one subagent file per agent. Claude reads full JSON Schema. */
export const claude = {
  id: 'claude',
  title: 'Claude Code',
  toolRoute: 'mcp',
  modelToolName: (server, tool) => `mcp__${server}__${tool}`,
  scopesToolsPerAgent: true,
  builtinTools: [],
  builtinReplacement: 'allowed',
  // Every construct reaches the request as served (test/harness/schemas.test.ts).
  schemaLimits: {},
  agentFile: (agent) => `.claude/agents/${agent}.md`,
  // CLAUDE.md files, `.claude/rules` (a rule with `paths:` once the model touches a matching file); follows `@file` imports.
  instructions: {
    // Reads AGENTS.md only where no CLAUDE.md is (its `instructionFiles` default), and one import of it however many files import it.
    agentsMd: { importFrom: '.claude/CLAUDE.md', line: '@../AGENTS.md' },
    alsoReads: ['CLAUDE.md', 'CLAUDE.local.md'],
    importsOnce: true,
    syntax: IMPORT_SYNTAX,
    scoped: CLAUDE_RULES,
    home: { file: '.claude/CLAUDE.md', scoped: CLAUDE_RULES },
  },
  approvals: { written: 'as `mcp__<server>__<tool>` in `permissions.allow` or `permissions.ask` of `.claude/settings.json`' },
  // MCP image content in the tool result; the details as the server's log message, which `claude -p` does not print.
  results: { images: 'in-result', details: 'log' },
  // An agent's `tools` takes `mcp__<server>` for every tool of a server (its resolver's server-level entry), and
  // `disallowedTools` the same; permission rules take `mcp__<server>` and `mcp__<server>__<tool>`.
  mcp: {
    route: 'config',
    files: [MCP_JSON_FILE],
    toolNames: { server: (server) => `mcp__${server}`, tool: (server, tool) => `mcp__${server}__${tool}` },
    agentDenyList: 'disallowedTools',
  },
  // Hooks of `.claude/settings.json` (test/harness/hooks.test.ts): the model reads a block's reason, and `ask`
  // blocks a headless run (-p) and asks in the UI.
  hooks: {
    wire: 'claude',
    events: { beforeTool: 'PreToolUse', afterTool: 'PostToolUse', sessionStart: 'SessionStart', userPrompt: 'UserPromptSubmit', stop: 'Stop', preCompact: 'PreCompact' },
    builtins: { shell: ['Bash'], read: ['Read'], write: ['Write'], edit: ['Edit', 'MultiEdit', 'NotebookEdit'], search: ['Grep', 'Glob'], fetch: ['WebFetch'] },
    toolName: (server, tool) => `mcp__${server}__${tool}`,
    limits: {},
    // An agent's frontmatter takes `hooks` of the settings' shape, run while that agent works.
    scopesToAgents: true,
    registration: { kind: 'command', file: () => '.claude/settings.json', shape: 'settings', timeout: { key: 'timeout', unit: 's' }, projectDir: '$CLAUDE_PROJECT_DIR' },
  },
  checkFields: (fields, agentName) =>
    Object.keys(fields)
      .filter((key) => Object.hasOwn(OWN_FRONTMATTER_KEYS, key))
      .map((key) => ({
        code: 'harness-field-reserved',
        message: `Agent "${agentName}" sets \`harness.claude.${key}\`, which unplugin-oac writes itself from ${OWN_FRONTMATTER_KEYS[key]}.`,
        fix: `Remove \`${key}\` from \`harness.claude\` and set ${OWN_FRONTMATTER_KEYS[key]} instead.`,
      })),
  // Only `.claude/skills` (its stream-json init event lists no skill of `.agents/skills`); the Skill tool
  // hands the model the text, with the skill's folder ("Base directory for this skill").
  skills: {
    folders: ['.claude/skills'],
    userOnly: { field: 'disable-model-invocation' },
    // Bash rules: `:*` matches by prefix (the script run from the project); `*` elsewhere is a wildcard
    // (the skill's copy by its absolute path, from any folder). Mixing the two makes `*` literal.
    allowedTools: (scripts, folder) => scripts.flatMap((script) => [`Bash(node ${script}:*)`, ...(folder === undefined ? [] : [`Bash(node */${folder}/${script} *)`])]).join(', '),
    syntax: CLAUDE_SYNTAX,
    activation: { tool: 'Skill' },
  },
  commands: [CLAUDE_COMMAND],
  // Checked with the real CLI (test/harness/plugin-claude.test.ts): a plugin's server `<server>` is `plugin:<plugin>:<server>`,
  // its tools `mcp__plugin_<plugin>_<server>__<tool>`; agents, skills and commands are `<plugin>:<name>`.
  plugin: {
    format: 'claude',
    serverName: (plugin, server) => `plugin_${plugin}_${server}`,
    install: 'claude plugin marketplace add <dir> && claude plugin install <plugin>@<plugin>',
    unsupported: {
      allow: {
        says: "a plugin brings no permissions (its own settings.json takes only `agent` and `subagentStatusLine`; `permissions` are the user's and the project's settings)",
        fix: 'Tell your users to allow the tools they trust: with /permissions, or as items of `permissions.allow` in their settings (mcp__plugin_<plugin>_<server>__<tool>).',
      },
      ask: {
        says: "a plugin brings no permissions (its own settings.json takes only `agent` and `subagentStatusLine`; `permissions` are the user's and the project's settings)",
        fix: 'Claude Code asks before each MCP tool call unless a user allows it; tell your users not to allow these tools.',
      },
    },
  },
  // Checked with the real CLI (test/harness/user-scope.test.ts): user MCP servers are `~/.claude.json`'s top-level `mcpServers`.
  userScope: { paths: [['.mcp.json', '.claude.json'], ['.claude/', '.claude/']] },
  proof: {
    cli: { package: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
    test: 'test/harness/claude-codex.test.ts',
    // `claude mcp list` starts each server (initialize + tools/list); its exit code is 0 even on failure.
    // Server names hold only letters, digits, "_" and "-", none of them special in a pattern.
    list: { kind: 'command', args: () => ['mcp', 'list'], expect: ({ server }) => new RegExp(`^${server}: .* - ✔ Connected$`, 'm') },
  },
  // `claude mcp list` says "⏸ Pending approval" of a project's server until the folder is trusted and the
  // server approved (settings.local.json alone is ignored in an untrusted folder); a user's server needs neither.
  doctor: {
    reads: ['.mcp.json', '.claude/'],
    probe: {
      args: () => ['mcp', 'list'],
      env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      read: ({ stdout }, { server }) => {
        const status = listedStatus(stdout, server)
        if (status === undefined) return { ready: false, problem: `does not list the server ${server}` }
        if (status.startsWith('✔ Connected')) return { ready: true, sees: `server ${server} connected` }
        if (status.includes('Pending approval')) return { ready: false, step: 'approve' }
        return { ready: false, problem: `lists the server ${server} as "${status}"` }
      },
    },
    fixes: {
      approve: ({ target, home, env, server }) => ({
        says: `waits for the folder's trust and the approval of its server ${server}`,
        ask: `run \`claude\` in ${target}, trust the folder and approve ${server}`,
        edits: [
          { file: join(env.CLAUDE_CONFIG_DIR || home, '.claude.json'), format: 'json', path: ['projects', target, 'hasTrustDialogAccepted'], op: 'set', value: true },
          { file: join(target, '.claude/settings.local.json'), format: 'json', path: ['enabledMcpjsonServers'], op: 'add', value: server },
        ],
      }),
    },
  },
} satisfies HarnessDescription
