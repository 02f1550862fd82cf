import { join } from 'node:path'
import { pluginPackageNeeds, readToolsMap, xdgConfigFolder } from './doctor-steps.js'
import { OPENCODE_ENTRY } from './mcp-formats.js'
import { OPENCODE_SKILLS, OPENCODE_TOOL_NAMES, opencode, opencodeCommand } from './opencode.js'
import type { HarnessDescription } from './types.js'

/** Kilo (an opencode fork): opencode's tool shims and agent files under `.kilo/`, importing `@kilocode/plugin`. */
export const kilo = {
  id: 'kilo',
  title: 'Kilo',
  toolRoute: 'shim',
  modelToolName: (_server, tool) => tool,
  // Each agent's permission map denies every tool, then allows its allow-list, as in opencode: a sub-agent
  // started through `task` is shown its own tools and none of the others (test/harness/subagents.test.ts).
  scopesToolsPerAgent: true,
  // Kilo 7.7.7's tool ids (its agents' tool maps) with opencode's: a custom tool takes a built-in's place.
  builtinTools: [
    'apply_patch', 'background_process', 'bash', 'batch', 'board_post', 'board_read', 'cancel_wakeup', 'codesearch', 'edit',
    'glob', 'goal_report', 'grep', 'invalid', 'kilo_local_recall', 'list', 'lsp', 'multiedit', 'patch', 'plan_enter',
    'plan_exit', 'question', 'read', 'schedule_wakeup', 'skill', 'suggest', 'task', 'todoread', 'todowrite', 'webfetch',
    'websearch', 'write',
  ],
  builtinReplacement: 'allowed',
  schemaLimits: {
    recursion: { severity: 'warning', effect: 'the Kilo shim types the recursive field as unknown (z.unknown(); the tool script still validates the real schema)' },
  },
  agentFile: (agent) => `.kilo/agents/${agent}.md`,
  // AGENTS.md and every `.kilo/rules/*.md`, always on: no path-scoped rules.
  instructions: { agentsMd: 'reads', home: { file: '.config/kilo/AGENTS.md' } },
  // As for opencode: every field is written as given; a `permission` map refines ours key by key.
  approvals: { written: 'as `allow` or `ask` in the `permission` of each agent file and of `.kilo/kilo.json` (every agent); the tool shim asks Kilo before it runs' },
  // As opencode: file attachments after the results; `metadata.details` in `kilo run --format json`.
  results: { images: 'after-result', details: 'output' },
  // Checked with the real CLI (docs/mcp-servers.md): `{env:NAME}` in a project's config makes Kilo skip
  // the whole file ("environment references are not allowed in project config"), and `${NAME}` is
  // not filled; the user's config takes `{env:NAME}`. A stdio server inherits Kilo's environment.
  mcp: {
    route: 'config',
    files: [{ path: '.kilo/kilo.json', format: 'json', key: ['mcp'], entry: { ...OPENCODE_ENTRY, inheritsEnv: true } }],
    unfilled: {
      argument: { says: "refuses an environment reference in a project's config (it skips the whole file)", project: true },
      renamedEnv: { says: "refuses an environment reference in a project's config (it skips the whole file)", project: true },
      header: { says: "refuses an environment reference in a project's config (it skips the whole file)", project: true },
    },
    toolNames: OPENCODE_TOOL_NAMES,
    // A server its project config cannot carry goes through our bridge plugin (`.kilo/plugins/<server>-mcp.ts`),
    // whose tools are `<server>_<tool>` as Kilo names an MCP server's. Kilo 7.7.7 awaits each plugin's
    // function with no limit of its own (its plugin service, `tryPromise` per plugin), so the bridge's bound is pi's.
    unfilledRoute: 'bridge',
    bridge: { waitMs: 5_000, nameMax: 64 },
  },
  // Kilo's plugins are opencode's; it loads them from `.kilo/plugins/` (not `.opencode/plugins/`).
  hooks: { ...opencode.hooks, registration: { kind: 'plugin', file: (server) => `.kilo/plugins/${server}-hooks.ts` } },
  checkFields: opencode.checkFields,
  skills: OPENCODE_SKILLS,
  // `.kilo/command` and `.kilo/commands` (Kilo's own docs name the first); not `.opencode/command`.
  commands: [opencodeCommand('Kilo', '.kilo/command', 'kilo')],
  // The folder's `opencode/index.mjs` (package.json `main`) by the folder's path or the package's npm name; a plugin's
  // tools are shown by their own names, so no server name goes into them (test/harness/plugin-opencode.test.ts). Its
  // `config` hook adds the MCP servers, their references filled from Kilo's environment (no file holds them), so
  // every server goes there: Kilo 7.7.7 starts them as its config's (plugins are initialised before its MCP service).
  plugin: {
    format: 'opencode',
    serverName: (_plugin, server) => server,
    install: '"plugin": ["<dir>"] (or the npm name) in kilo.json or ~/.config/kilo/kilo.json',
  },
  userScope: { paths: [['.kilo/', '.config/kilo/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@kilocode/cli', version: '7.7.7', bin: 'kilo' },
    test: 'test/harness/copilot-kilo.test.ts',
    list: { kind: 'command', args: ({ agent }) => ['debug', 'agent', agent], expect: ({ tool }) => new RegExp(`"${tool}":\\s*true`) },
  },
  // As opencode, but its default agent is `code`, and its plugin package's newest is older than the CLI
  // (7.7.7 asks for @kilocode/plugin@7.7.7, which npm does not have): 7.3.1 works in its place.
  doctor: {
    reads: ['.kilo/'],
    toolFile: (tool) => `.kilo/tools/${tool}.ts`,
    needs: (place) =>
      pluginPackageNeeds(
        place,
        [...(place.scope === 'project' ? [join(place.target, '.kilo')] : []), xdgConfigFolder(place, 'kilo')],
        '@kilocode/plugin',
        'which Kilo installs there on start, at its own version (which npm does not have; offline it waits and loads no tool)',
      ),
    probe: {
      args: () => ['debug', 'agent', 'code'],
      env: { KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1', KILO_TELEMETRY_LEVEL: 'off' },
      read: ({ stdout }, names) => readToolsMap(stdout, names, 'agent code'),
    },
    fixes: {},
  },
} satisfies HarnessDescription
