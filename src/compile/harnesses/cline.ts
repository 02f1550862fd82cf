import type { HarnessDescription } from './types.js'

/**
 * Cline (the `cline` CLI): one in-process plugin, `.cline/plugins/<server>.ts`, registering every JSON
 * tool by its own name with its JSON Schema as `inputSchema` (docs/cline.md). The plugin route, not MCP:
 * Cline 3.0.65 reads MCP servers only from the user's `cline_mcp_settings.json`, none from a project, and
 * a project plugin loads with no trust step. Its sub-agents (`spawn_agent`) take a system prompt and a
 * task, no named agent and no tool list: no agent files, every agent shares the tools.
 */
export const cline = {
  id: 'cline',
  title: 'Cline',
  toolRoute: 'shim',
  modelToolName: (_server, tool) => tool,
  scopesToolsPerAgent: false,
  // The tools Cline 3.0.65 showed the scripted model (`cline --json` in a project with no files of its own).
  builtinTools: [
    'skills', 'read_files', 'search_codebase', 'run_commands', 'fetch_web_content', 'editor', 'ask_question', 'spawn_agent',
    'team_spawn_teammate', 'team_shutdown_teammate', 'team_status', 'team_task', 'team_run_task', 'team_cancel_run', 'team_list_runs',
    'team_await_runs', 'team_send_message', 'team_broadcast', 'team_read_mailbox', 'team_mission_log', 'team_cleanup',
    'team_create_outcome', 'team_attach_outcome_fragment', 'team_review_outcome_fragment', 'team_finalize_outcome', 'team_list_outcomes',
  ],
  builtinReplacement: 'rejected',
  // The schema goes to the model as written (the plugin hands Cline the canonical JSON Schema).
  schemaLimits: {},
  agentFile: null,
  // AGENTS.md reaches its model once, in the system text (docs/cline.md, counted in a scripted request).
  // Path-scoped rules in .clinerules are not measured yet, so a path rule is not written for Cline (warned).
  // Its rules are AGENTS.md, `.clinerules`, `.cline/rules`, and the home's `~/.agents/AGENTS.md` ("Global AGENTS.md"),
  // `~/.cline/rules`, `~/Documents/Cline/Rules`; a rule file's frontmatter has no paths (@cline/core 3.0.65).
  instructions: { agentsMd: 'reads', alsoReads: ['.clinerules'], home: { file: '.agents/AGENTS.md' } },
  approvals: { unsupported: 'Cline auto-approves every tool of a prompt given on its command line, and its plugins register tools without an approval policy', fix: 'Run Cline with `--auto-approve false` to be asked before each tool.' },
  // A plugin tool's `execute` returns a string: the plugin hands Cline the result's text alone.
  results: {
    images: { lost: "returns a plugin tool's result to its model as text alone" },
    details: { lost: 'shows the user nothing of a plugin tool beyond its text' },
  },
  // Cline 3.0.65 reads MCP servers only from the user's ~/.cline/data/settings/cline_mcp_settings.json, none
  // from a project (docs/cline.md): a registry's servers reach it through our plugin, as pi's do. The plugin
  // sandbox gives the import and `setup` of all plugins 4 s together (`CLINE_PLUGIN_IMPORT_TIMEOUT_MS`) and
  // takes only the tools registered by the time `setup` resolves, so the bridge waits well within that (and
  // within the limit a user sets instead).
  mcp: {
    route: 'bridge',
    bridge: { waitMs: 2_500, limit: { env: 'CLINE_PLUGIN_IMPORT_TIMEOUT_MS', reserveMs: 1_500 }, nameMax: 64, textOnly: "returns a plugin tool's result to the model as text: an image a server's tool returns reaches it as a line naming the image" },
  },
  // In-process, in the same sandboxed plugin process as the tools: `.cline/plugins/<server>-hooks.ts`, its
  // runtime hooks `beforeTool` (`{ skip, reason }`: the reason is the tool result the model reads; `{ input }`
  // rewrites) and `afterTool` (`appendContext` reaches the model after the results).
  hooks: {
    wire: 'cline',
    events: { beforeTool: 'beforeTool', afterTool: 'afterTool' },
    builtins: { shell: ['run_commands'], read: ['read_files'], write: ['editor'], edit: ['editor'], search: ['search_codebase'] },
    toolName: (_server, tool) => tool,
    limits: { ask: { instead: 'block', says: 'has no way for a plugin hook to ask the user' } },
    registration: { kind: 'plugin', file: (server) => `.cline/plugins/${server}-hooks.ts` },
  },
  checkFields: () => [],
  // `.clinerules/skills`, `.cline/skills` and `.agents/skills` of the workspace; the model starts one with its
  // `skills` tool, which lists every skill by name.
  skills: {
    folders: ['.agents/skills'],
    userOnly: { unsupported: 'Cline shows every skill to its model through its `skills` tool' },
    activation: { tool: 'skills' },
  },
  // A workflow: `.cline/workflows/<name>.md`. The user types `/<name> <text>`; Cline 3.0.65 sends the file's text
  // (frontmatter off) with <text> right after it, the `/<name>` gone (test/harness/cline.test.ts).
  commands: [
    {
      reader: 'Cline',
      path: (command) => `.cline/workflows/${command}.md`,
      // One folder: a workflow is started by its file's name.
      names: { prefix: '/', character: /[a-z0-9_.-]/ },
      format: 'markdown',
      args: () => 'the text at the end of this message',
      fields: {},
      syntax: { special: [] },
      harness: 'cline',
    },
  ],
  plugin: {
    format: 'cline',
    serverName: (_plugin, server) => server,
    install: 'cline plugin install <dir>',
    unsupported: {
      commands: { says: 'its plugins are code modules, and workflows are read from folders only', fix: 'install the commands with --scope user' },
    },
  },
  userScope: { paths: [['.cline/', '.cline/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: 'cline', version: '3.0.65', bin: 'cline' },
    test: 'test/harness/cline.test.ts',
    list: { kind: 'model', why: "`cline config` shows its plugins only on its settings screen, in a terminal, and no other command lists a project's plugins or tools (docs/cline.md)" },
  },
  doctor: {
    reads: ['.cline/'],
    // Checked with 3.0.65: `cline config --json` refuses to run without a terminal, and `cline plugin` only installs and uninstalls.
    probe: { unprobed: 'it has no command that lists the plugins or tools it loads without a terminal; it loads .cline/plugins/ at start, with nothing to approve' },
    fixes: {},
  },
} satisfies HarnessDescription
