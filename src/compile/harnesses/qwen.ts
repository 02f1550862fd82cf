import { GEMINI_ENTRY } from './mcp-formats.js'
import { frontmatterFieldCheck } from './agent-fields.js'
import { listedStatus } from './doctor-steps.js'
import { GEMINI_SYNTAX, IMPORT_SYNTAX } from './text-syntax.js'
import type { HarnessDescription } from './types.js'

/**
 * Qwen Code (a Gemini CLI fork): our tools over MCP (`.qwen/settings.json`), one `.qwen/agents/<agent>.md`
 * per agent. Its frontmatter parsing is lenient (unknown keys are dropped), so only owned keys are refused.
 */
export const qwen = {
  id: 'qwen',
  title: 'Qwen Code',
  toolRoute: 'mcp',
  modelToolName: (server, tool) => `mcp__${server}__${tool}`,
  // A sub-agent is shown only the tools its `tools` lists (test/harness/subagents.test.ts). The main agent
  // has MCP tools deferred: named in a reminder, reached through `tool_search` or called by that name.
  scopesToolsPerAgent: true,
  builtinTools: [],
  builtinReplacement: 'allowed',
  // Every construct reaches a sub-agent's request as served (test/harness/schemas.test.ts).
  schemaLimits: {},
  agentFile: (agent) => `.qwen/agents/${agent}.md`,
  // QWEN.md and AGENTS.md together, `.qwen/rules` (a rule with `paths:` for matching files); follows `@file` imports.
  instructions: {
    agentsMd: 'reads',
    alsoReads: ['QWEN.md', '.qwen/QWEN.local.md'],
    syntax: IMPORT_SYNTAX,
    scoped: { file: (rule) => `.qwen/rules/${rule}.md`, key: 'paths', form: 'list' },
    // `~/.qwen/rules` as the project's, and `~/.qwen/AGENTS.md` beside QWEN.md (both read).
    home: { file: '.qwen/QWEN.md', scoped: { file: (rule) => `.qwen/rules/${rule}.md`, key: 'paths', form: 'list' } },
    // An extension's `contextFileName` (QWEN.md when it names none; ours names Gemini's), and its `rules/`,
    // of which it reads only those with `paths` (`loadRules`, 0.24.4).
    plugin: { file: 'GEMINI.md', scoped: { file: (rule) => `rules/${rule}.md`, key: 'paths', form: 'list' } },
  },
  approvals: { written: 'as `mcp__<server>__<tool>` in `permissions.allow` or `permissions.ask` of `.qwen/settings.json`' },
  // In a user message after the results, to a model whose modalities take images (to others `[image: image/png]`); the details as the server's log message.
  results: { images: 'after-result', details: 'log' },
  // Permission rules and an agent's `disallowedTools` take `mcp__<server>` for every tool of a server. An
  // agent's `tools` takes exact names alone: 0.24 runs a sub-agent's tool only when the list names it
  // (`isToolExecutionAllowed`), so `mcp__<server>` there gives it nothing (test/harness/mcp-scope.test.ts).
  mcp: {
    route: 'config',
    files: [{ path: '.qwen/settings.json', format: 'json', key: ['mcpServers'], entry: GEMINI_ENTRY }],
    toolNames: { server: (server) => `mcp__${server}`, tool: (server, tool) => `mcp__${server}__${tool}` },
    agentDenyList: 'disallowedTools',
    exactAgentLists: true,
  },
  // Hooks of `.qwen/settings.json`. UserPromptSubmit fires before every model turn (with an empty prompt after
  // the first: the runtime passes those over); PreToolUse's `updatedInput` is not applied in 0.24.
  hooks: {
    wire: 'claude',
    events: { beforeTool: 'PreToolUse', afterTool: 'PostToolUse', sessionStart: 'SessionStart', userPrompt: 'UserPromptSubmit', stop: 'Stop', preCompact: 'PreCompact' },
    builtins: { shell: ['run_shell_command'], read: ['read_file'], write: ['write_file'], edit: ['edit'], search: ['grep_search', 'glob'], fetch: ['web_fetch'] },
    toolName: (server, tool) => `mcp__${server}__${tool}`,
    limits: { rewrite: { instead: 'block', says: 'does not apply a new input from a hook' } },
    registration: { kind: 'command', file: () => '.qwen/settings.json', shape: 'settings', timeout: { key: 'timeout', unit: 's' }, projectDir: '$QWEN_PROJECT_DIR' },
  },
  checkFields: frontmatterFieldCheck('qwen', 'Qwen Code'),
  fillsPromptPlaceholders: true,
  // `.agents/skills` (and `.qwen/skills`), not `.claude/skills`. Markdown commands, filled as Gemini CLI fills its TOML ones.
  skills: { folders: ['.agents/skills'], userOnly: { field: 'disable-model-invocation' }, activation: { tool: 'skill' } },
  commands: [
    // Gemini CLI's processors: `!{...}` runs a shell command; no positional placeholders.
    // 0.24 joins subfolders and the file's name with `:`, a `:` of a file's name read as `_` (`createSlashCommandFromDefinition`).
    { reader: 'Qwen Code', path: (command) => `.qwen/commands/${command}.md`, names: { prefix: '/', folders: ':', character: /[a-z0-9_.-]/ }, format: 'markdown', args: () => '{{args}}', fields: { argumentHint: 'argument-hint' }, syntax: GEMINI_SYNTAX, harness: 'qwen', shell: (command) => `!{${command}}` },
  ],
  // The Gemini extension, with a `qwen-extension.json` of Qwen's own hooks that Qwen takes in place of
  // converting Gemini's manifest; an extension's server keeps its name, `mcp__<server>__<tool>`
  // (test/harness/plugin-gemini.test.ts). Its agents are Gemini's files (one `agents/` folder for both).
  plugin: {
    format: 'gemini',
    serverName: (_plugin, server) => server,
    install: 'qwen extensions install <dir>',
    unsupported: {
      agents: {
        says: "it reads the Gemini extension's agents/ folder, whose agents name their tools as Gemini CLI does (mcp_<server>_<tool>), so in Qwen Code they get none of the plugin's tools",
        fix: 'Compile the agents into the project for Qwen Code (oac compile --harness qwen, without --plugin), or leave qwen out of the plugin\'s harnesses.',
      },
      allow: { says: 'it reads no approval rules from an extension', fix: 'Tell your users to add the tools to `permissions.allow` of their ~/.qwen/settings.json (mcp__<server>__<tool>), or accept that Qwen Code decides.' },
      ask: { says: 'it reads no approval rules from an extension', fix: 'Tell your users to add the tools to `permissions.ask` of their ~/.qwen/settings.json (mcp__<server>__<tool>), or accept that Qwen Code decides.' },
    },
  },
  userScope: { paths: [['.qwen/', '.qwen/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
    test: 'test/harness/gemini-qwen.test.ts',
    // Project servers show "Pending approval" until `qwen mcp approve <name>`; then it connects to each.
    list: { kind: 'command', args: (_names) => ['mcp', 'list'], expect: ({ server }) => new RegExp(`✓\\S* ${server}: .* - Connected$`, 'm') },
  },
  // A project's servers wait for `qwen mcp approve`, which binds the approval to the server's config as the
  // environment fills it in (`${FORECAST_UNITS}`): approve in the environment qwen runs in.
  doctor: {
    reads: ['.qwen/'],
    probe: {
      args: () => ['mcp', 'list'],
      read: ({ stdout }, { server }) => {
        const status = listedStatus(stdout, server)
        if (status === 'Connected') return { ready: true, sees: `server ${server} connected` }
        if (status === 'Pending approval') return { ready: false, step: 'approve' }
        return { ready: false, problem: status === undefined ? `does not list the server ${server}` : `lists the server ${server} as "${status}"` }
      },
    },
    fixes: {
      approve: ({ target, server }) => ({
        says: `waits for the approval of the project's server ${server} (bound to its settings as your environment fills them in)`,
        command: { cwd: target, argv: ['qwen', 'mcp', 'approve', server] },
      }),
    },
  },
} satisfies HarnessDescription
