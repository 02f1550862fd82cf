import { OMP_SYNTAX } from './text-syntax.js'
import type { HarnessDescription } from './types.js'

const STILL_VALIDATES = 'the tool script still validates the real schema'

/**
 * oh-my-pi: a `.omp/tools/<tool>/index.ts` factory per tool with `pi.zod` parameters (string, number,
 * boolean, literal, enum, union, array, object, record, unknown, any). No agent files.
 */
export const omp = {
  id: 'omp',
  title: 'oh-my-pi',
  toolRoute: 'shim',
  modelToolName: (_server, tool) => tool,
  scopesToolsPerAgent: false,
  // omp 18.2.3 rejects a custom tool with one of these names ("conflicts with existing tool").
  builtinTools: [
    'ast_edit', 'bash', 'debug', 'edit', 'eval', 'glob', 'goal', 'grep', 'hub', 'init_experiment', 'log_experiment',
    'lsp', 'read', 'run_experiment', 'task', 'todo', 'update_notes', 'web_search', 'write',
  ],
  builtinReplacement: 'rejected',
  schemaLimits: {
    recursion: { severity: 'warning', effect: `the omp tool types the recursive field as unknown (pi.zod.unknown(); ${STILL_VALIDATES})` },
    intersection: { severity: 'warning', effect: `the omp tool types the field as unknown (pi.zod has no intersection; ${STILL_VALIDATES})` },
    'pattern-properties': { severity: 'warning', effect: `the omp tool takes a record of any keys there (pi.zod.record has no key pattern; ${STILL_VALIDATES})` },
    tuple: { severity: 'warning', effect: `the omp tool takes an array of unknown values (pi.zod has no tuple; ${STILL_VALIDATES})` },
  },
  agentFile: null,
  // `.omp/rules/*.md` by `globs` (and `alwaysApply`), and Copilot's `.github/instructions` by `applyTo`; a `.omp/AGENTS.md` takes the root AGENTS.md's place.
  // A rule with globs is listed to the model from the start by name, globs and description, and its text read
  // through `rule://<name>` when the model asks, not on reading a matching file (test/harness/rules-scoped.test.ts).
  instructions: {
    agentsMd: 'reads',
    hiddenBy: ['.omp/AGENTS.md'],
    readsScopedOf: ['copilot'],
    scoped: { file: (rule) => `.omp/rules/${rule}.md`, key: 'globs', form: 'list' },
    // Its agent folder holds `rules/` as a project's `.omp/` does (discovery/builtin.ts, 18.2.3; measured). Of a home's
    // context files it reads one, its own AGENTS.md first (`~/.copilot/copilot-instructions.md` and
    // `~/.claude/CLAUDE.md` are shadowed; capability/context-file.ts), and no `~/.copilot/instructions`.
    home: { file: '.omp/agent/AGENTS.md', scoped: { file: (rule) => `.omp/agent/rules/${rule}.md`, key: 'globs', form: 'list' } },
  },
  approvals: { written: 'as each tool\'s `approval` policy (`allow` or `prompt`)' },
  // Image blocks in a user message after the results; `result.details` in `--mode json`.
  results: { images: 'after-result', details: 'output' },
  // 18.2.3 connects the servers of `.omp/mcp.json` but mounts their tools as `xd://` devices, not as tools
  // its model calls by name (docs/mcp-servers.md). Our bridge extension registers the servers' tools as
  // they are listed, and a prompt waits for them at `before_agent_start` (which omp ends after 30 s), so the
  // bridge bounds its own wait.
  mcp: { route: 'bridge', bridge: { waitMs: 5_000, nameMax: 64 } },
  // Hooks in-process: a generated extension, `.omp/extensions/<server>-hooks.ts` (pi's events, a new input
  // returned, and `session_stop` to keep going). Handlers run at most 30 s, then block.
  hooks: {
    wire: 'omp',
    events: { beforeTool: 'tool_call', afterTool: 'tool_result', sessionStart: 'session_start', userPrompt: 'before_agent_start', stop: 'session_stop', preCompact: 'session_before_compact' },
    builtins: { shell: ['bash'], read: ['read'], write: ['write'], edit: ['edit', 'ast_edit'], search: ['grep', 'glob'] },
    toolName: (_server, tool) => tool,
    limits: {},
    registration: { kind: 'plugin', file: (server) => `.omp/extensions/${server}-hooks.ts` },
  },
  checkFields: () => [],
  // Skills of `.omp`, `.claude`, `.agents`, `.codex`, `.gemini`... by provider priority: a name in both of
  // ours is shown once, `.claude` (80) winning over `.agents` (70). Commands of `.omp/commands` win over
  // the `.claude/commands` it also reads (100 over 80).
  skills: { folders: ['.claude/skills', '.agents/skills'], userOnly: { field: 'disable-model-invocation' }, activation: { via: 'its read tool (skill://<name>)' } },
  commands: [
    // pi's `substituteArgs`: `$1` is the first word; nothing runs a shell command.
    // One folder (`loadSlashCommands` reads `.omp/commands` without its subfolders), a command named by its file.
    { reader: 'oh-my-pi', path: (command) => `.omp/commands/${command}.md`, names: { prefix: '/', character: /[a-z0-9_.-]/ }, format: 'markdown', args: () => '$ARGUMENTS', fields: { argumentHint: 'argument-hint' }, syntax: OMP_SYNTAX, harness: 'omp', positional: (n) => `$${n}` },
  ],
  // An omp plugin package (`package.json` `omp`: its native tools and hooks), which `omp plugin install <dir>`
  // links; no MCP server (test/harness/plugin-codex-pi.test.ts). From the Claude format omp would take the
  // tools over MCP and not run the hooks.
  plugin: { format: 'omp', serverName: (_plugin, server) => server, install: 'omp plugin install <dir>' },
  userScope: { paths: [['.omp/', '.omp/agent/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@oh-my-pi/pi-coding-agent', version: '18.2.3', bin: 'omp' },
    test: 'test/harness/opencode-pi-omp.test.ts',
    // omp runs only under bun and has no list command; its SDK lists custom tools (with `tools.xdev: false`).
    list: { kind: 'sdk', module: '@oh-my-pi/pi-coding-agent', call: 'createAgentSession({ cwd }).session.getAllToolNames()', expect: ({ tool }) => tool },
  },
  doctor: {
    reads: ['.omp/'],
    probe: { unprobed: 'it has no command that lists its tools without a model; it loads .omp/ at start, with nothing to approve' },
    fixes: {},
  },
} satisfies HarnessDescription
