import { join } from 'node:path'
import { GEMINI_ENTRY } from './mcp-formats.js'
import { frontmatterFieldCheck } from './agent-fields.js'
import { listedStatus } from './doctor-steps.js'
import { GEMINI_SYNTAX, IMPORT_SYNTAX } from './text-syntax.js'
import type { HarnessDescription } from './types.js'

/**
 * The rest of Gemini CLI 0.61's local-agent frontmatter. Its zod schema is `.strict()`: any other key
 * makes the agent fail to load. (`kind` is left out: `remote` turns the file into another schema.)
 */
export const GEMINI_AGENT_KEYS: readonly string[] = ['display_name', 'temperature', 'max_turns', 'timeout_mins', 'mcp_servers']

/**
 * Gemini CLI: our tools over MCP (`.gemini/settings.json`), one `.gemini/agents/<agent>.md` per agent.
 * MCP tools reach the model as `parametersJsonSchema`, the schema as served.
 */
export const gemini = {
  id: 'gemini',
  title: 'Gemini CLI',
  toolRoute: 'mcp',
  // `generateValidName` in 0.61: `mcp_` + server + `_` + tool, cut to first 30 + `...` + last 30 past 63 characters.
  modelToolName: (server, tool) => `mcp_${server}_${tool}`,
  toolNameCap: { limit: 63, name: (server, tool) => `mcp_${server}_${tool}` },
  // Gemini reads a tool name back by the first `_` after `mcp_` (its approval settings, agent `tools` lists).
  serverNameProblem: (server) => (server.includes('_') ? `contains "_", which Gemini CLI cannot tell from the "_" between server and tool in mcp_${server}_<tool>` : undefined),
  // A sub-agent is shown only the tools its `tools` lists (test/harness/subagents.test.ts), and a call to
  // another tool is refused (test/harness/gemini-qwen.test.ts).
  scopesToolsPerAgent: true,
  builtinTools: [],
  builtinReplacement: 'allowed',
  // Every construct reaches the request as served (test/harness/schemas.test.ts).
  schemaLimits: {},
  agentFile: (agent) => `.gemini/agents/${agent}.md`,
  // GEMINI.md, and AGENTS.md once `context.fileName` lists it; follows `@file` imports; no path-scoped rules.
  instructions: {
    // GEMINI.md stays listed: a user's own GEMINI.md is read as before.
    agentsMd: { setting: { file: '.gemini/settings.json', list: ['context', 'fileName'], items: ['AGENTS.md', 'GEMINI.md'] } },
    alsoReads: ['GEMINI.md'],
    syntax: IMPORT_SYNTAX,
    home: { file: '.gemini/GEMINI.md' },
    // An extension's `contextFileName` (GEMINI.md when it names none).
    plugin: { file: 'GEMINI.md' },
  },
  approvals: { written: 'as `mcp_<server>_<tool>` in `tools.allowed` or `tools.confirmationRequired` of `.gemini/settings.json`' },
  // The function response says an image came, and the image is the part after it; the details as the server's log message.
  results: { images: 'after-result', details: 'log' },
  // An agent's `tools` and the policy's tool names take `mcp_<server>_*` for every tool of a server (0.61
  // `registerToolByName`, `matchesWildcard`); its closed agent schema has no list of tools to hide.
  mcp: {
    route: 'config',
    files: [{ path: '.gemini/settings.json', format: 'json', key: ['mcpServers'], entry: GEMINI_ENTRY }],
    toolNames: { server: (server) => `mcp_${server}_*`, tool: (server, tool) => `mcp_${server}_${tool}` },
  },
  // Hooks of `.gemini/settings.json`, in a trusted folder. `ask` makes a headless run wait for ever; PreCompress
  // fires before every model turn, compressing or not (test/harness/hooks.test.ts).
  hooks: {
    wire: 'gemini',
    events: { beforeTool: 'BeforeTool', afterTool: 'AfterTool', sessionStart: 'SessionStart', userPrompt: 'BeforeAgent', stop: 'AfterAgent', preCompact: 'PreCompress' },
    builtins: { shell: ['run_shell_command'], read: ['read_file'], write: ['write_file'], edit: ['replace'], search: ['grep_search', 'glob'], fetch: ['web_fetch'] },
    toolName: (server, tool) => `mcp_${server}_${tool}`,
    limits: { ask: { instead: 'block', says: 'cannot ask from a hook in a headless run (it waits for ever)' } },
    // Gemini replaces `$GEMINI_PROJECT_DIR` in the command by a quoted path before its shell runs: braces keep the quoting right.
    registration: { kind: 'command', file: () => '.gemini/settings.json', shape: 'settings', timeout: { key: 'timeout', unit: 'ms' }, projectDir: '${GEMINI_PROJECT_DIR}', named: true },
  },
  checkFields: frontmatterFieldCheck('gemini', 'Gemini CLI', GEMINI_AGENT_KEYS),
  fillsPromptPlaceholders: true,
  // `.agents/skills` (and `.gemini/skills`), not `.claude/skills`; no field keeps a skill from the model.
  skills: {
    folders: ['.agents/skills'],
    userOnly: { unsupported: 'Gemini CLI 0.61 reads no field that keeps a skill from its model' },
    activation: { tool: 'activate_skill' },
  },
  commands: [
    // `!{...}` runs a shell command (`ShellProcessor`; it asks first unless the command is allowed); no positional placeholders.
    // 0.61 joins subfolders and the file's name with `:` and writes any character outside `[a-zA-Z0-9_.-]` as `_` (`FileCommandLoader`).
    { reader: 'Gemini CLI', path: (command) => `.gemini/commands/${command}.toml`, names: { prefix: '/', folders: ':', character: /[a-z0-9_.-]/ }, format: 'toml', args: () => '{{args}}', fields: {}, syntax: GEMINI_SYNTAX, harness: 'gemini', shell: (command) => `!{${command}}` },
  ],
  // An extension's server keeps its own name: `mcp list` shows it "(from <extension>)", and the model
  // `mcp_<server>_<tool>` (test/harness/plugin-gemini.test.ts).
  plugin: {
    format: 'gemini',
    serverName: (_plugin, server) => server,
    install: 'gemini extensions install <dir>',
    unsupported: {
      // `loadExtensionPolicies` in 0.61 ("Ignoring this rule for security"); its ASK_USER rules stay.
      allow: {
        says: "it drops every rule allowing a tool that an extension's policies/ bring, so those tools ask as any MCP tool does",
        fix: 'Tell your users to allow them in their own ~/.gemini/settings.json (`tools.allowed`: ["mcp_<server>_<tool>"]), or accept that Gemini CLI asks.',
      },
    },
  },
  userScope: { paths: [['.gemini/', '.gemini/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
    test: 'test/harness/gemini-qwen.test.ts',
    // Starts each server and pings it; subcommands need no key (with the folder trusted).
    list: { kind: 'command', args: (_names) => ['mcp', 'list'], expect: ({ server }) => new RegExp(`✓ ${server}: .* - Connected$`, 'm') },
  },
  // Prints its list on stderr; in an untrusted folder it lists the project's server as "Disabled".
  doctor: {
    reads: ['.gemini/'],
    probe: {
      args: () => ['mcp', 'list'],
      read: ({ stdout, stderr }, { server }) => {
        const output = `${stdout}\n${stderr}`
        const status = listedStatus(output, server)
        if (status === 'Connected') return { ready: true, sees: `server ${server} connected` }
        if (output.includes('disabled because this folder is untrusted')) return { ready: false, step: 'trust' }
        return { ready: false, problem: status === undefined ? `does not list the server ${server}` : `lists the server ${server} as "${status}"` }
      },
    },
    fixes: {
      trust: ({ target, home, env }) => ({
        says: 'does not trust the folder, so it starts none of its servers',
        ask: `run \`gemini\` in ${target} and trust the folder`,
        edits: [{ file: env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(env.GEMINI_CLI_HOME || home, '.gemini/trustedFolders.json'), format: 'json', path: [target], op: 'set', value: 'TRUST_FOLDER' }],
      }),
    },
  },
} satisfies HarnessDescription
