import { join } from 'node:path'
import { MCP_JSON_FILE, VSCODE_ENTRY } from './mcp-formats.js'
import { frontmatterFieldCheck } from './agent-fields.js'
import { settingsFolder } from './doctor-steps.js'
import { CLAUDE_COMMAND, IMPORT_SYNTAX, VSCODE_SYNTAX } from './text-syntax.js'
import type { HarnessDescription } from './types.js'

const STILL_VALIDATES = 'the tool script still validates the real schema'

/**
 * GitHub Copilot (the CLI, VS Code, the cloud agent): our tools over MCP (`.mcp.json`, `.vscode/mcp.json`),
 * one `.github/agents/<agent>.agent.md` per agent. Unknown frontmatter keys only warn.
 */
export const copilot = {
  id: 'copilot',
  title: 'GitHub Copilot',
  toolRoute: 'mcp',
  // The model sees `<server>-<tool>`; agent files list the tool as `<server>/<tool>`.
  modelToolName: (server, tool) => `${server}-${tool}`,
  toolNameCap: { limit: 64, name: (server, tool) => `${server}-${tool}` },
  // `--agent`, and a sub-agent started through `task`, show the model only the tools its file lists
  // (test/harness/copilot-kilo.test.ts, test/harness/subagents.test.ts).
  scopesToolsPerAgent: true,
  builtinTools: [],
  builtinReplacement: 'allowed',
  // Seen in Copilot CLI 1.0.102 through its BYOK OpenAI provider (test/harness/schemas.test.ts): it moves the
  // validation keywords it does not pass on (minLength, pattern, minimum, minItems, ...) into the field's
  // description as text, so two constructs reach the model only as words.
  schemaLimits: {
    'pattern-properties': { severity: 'warning', effect: `Copilot moves patternProperties into the field's description as text: the model sees an object of any keys (${STILL_VALIDATES})` },
    tuple: { severity: 'warning', effect: `Copilot keeps the positions (prefixItems) but moves the tuple's length into the field's description as text and shows no limit on further items (${STILL_VALIDATES})` },
  },
  agentFile: (agent) => `.github/agents/${agent}.agent.md`,
  // AGENTS.md, CLAUDE.md, GEMINI.md and .github/copilot-instructions.md together; follows `@file` imports; `applyTo` takes comma-joined globs.
  instructions: {
    agentsMd: 'reads',
    alsoReads: ['CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md'],
    syntax: IMPORT_SYNTAX,
    scoped: { file: (rule) => `.github/instructions/${rule}.instructions.md`, key: 'applyTo', form: 'comma-joined' },
    // It loads `.claude/rules/<name>.md` by its `paths:` too, once a matching file is read (test/harness/rules-scoped.test.ts).
    readsScopedOf: ['claude'],
    home: { file: '.copilot/copilot-instructions.md', scoped: { file: (rule) => `.copilot/instructions/${rule}.instructions.md`, key: 'applyTo', form: 'comma-joined' } },
  },
  approvals: {
    unsupported: 'the Copilot CLI 1.0 takes tool permissions only from its command line (`--allow-tool`) and its user settings, and VS Code from its user settings; neither reads them from the project',
    fix: "Start the Copilot CLI with --allow-tool='<server>(<tool>)' for each tool that may run without asking; VS Code asks on a tool's first call and can remember the answer.",
  },
  // Measured with a BYOK OpenAI provider (its own models cannot be run offline); the details as the server's log message.
  results: {
    images: { lost: 'hands the model of a BYOK provider the text of a tool result alone, showing the user `[Image: [image/png] <width>x<height>]` in its terminal (Copilot CLI 1.0.102)' },
    details: 'log',
  },
  // The CLI reads `.mcp.json` (and skips it whole when it holds a comment); VS Code reads `.vscode/mcp.json`.
  mcp: {
    route: 'config',
    files: [
      { ...MCP_JSON_FILE, strictJsonReader: 'the GitHub Copilot CLI' },
      { path: '.vscode/mcp.json', format: 'json', key: ['servers'], entry: VSCODE_ENTRY },
    ],
    // An agent file's `tools` takes `<server>/*` for every tool of a server (the model sees `<server>-<tool>`).
    toolNames: { server: (server) => `${server}/*`, tool: (server, tool) => `${server}/${tool}` },
  },
  // Hooks of `.github/hooks/<server>.json`, Copilot's own file and shape (camelCase events, `modifiedArgs`).
  // It also runs those of `.claude/settings.json`, Claude's way: our command there stands aside in Copilot.
  hooks: {
    wire: 'copilot',
    events: { beforeTool: 'preToolUse', afterTool: 'postToolUse', sessionStart: 'sessionStart', userPrompt: 'userPromptSubmitted', stop: 'agentStop', preCompact: 'preCompact' },
    builtins: { shell: ['bash', 'powershell'], read: ['view'], write: ['create'], edit: ['edit'], search: ['grep', 'glob'], fetch: ['web_fetch'] },
    toolName: (server, tool) => `${server}-${tool}`,
    limits: {},
    registration: { kind: 'command', file: (server) => `.github/hooks/${server}.json`, shape: 'copilot', timeout: { key: 'timeoutSec', unit: 's' }, projectDir: '$COPILOT_PROJECT_DIR' },
  },
  checkFields: frontmatterFieldCheck('copilot', 'GitHub Copilot'),
  // `.github/skills`, `.agents/skills` and `.claude/skills`: `copilot skill list` shows a name in both of ours once, from `.agents/skills`.
  skills: {
    folders: ['.agents/skills', '.claude/skills'],
    userOnly: { field: 'disable-model-invocation' },
    activation: { tool: 'skill' },
  },
  // The CLI loads `.claude/commands/<name>.md` as a skill of that name (`copilot skill list`), and no
  // `.prompt.md`; VS Code reads `.github/prompts/<name>.prompt.md`.
  commands: [
    { ...CLAUDE_COMMAND, reader: 'the Copilot CLI' },
    {
      reader: 'VS Code',
      path: (command) => `.github/prompts/${command}.prompt.md`,
      // One folder, named by the file (spec-kit's `speckit.plan.prompt.md` is `/speckit.plan`).
      names: { prefix: '/', character: /[a-z0-9_.-]/ },
      format: 'markdown',
      args: () => '${input:args}',
      fields: { argumentHint: 'argument-hint', model: 'model', agent: (agent) => ({ agent }) },
      syntax: VSCODE_SYNTAX,
      harness: 'copilot',
    },
  ],
  // Checked with the real CLI (test/harness/plugin-claude.test.ts): it installs the folder as it is, from its own
  // `.github/plugin/plugin.json`; the server keeps its name (`<server>-<tool>`), the agents are `<plugin>:<agent>`.
  // `copilot plugin install <dir>` works too, but Copilot warns that installing a path directly is deprecated.
  plugin: { format: 'claude', serverName: (_plugin, server) => server, install: 'copilot plugin marketplace add <dir> && copilot plugin install <plugin>@<plugin>' },
  userScope: {
    paths: [
      ['.mcp.json', '.copilot/mcp-config.json'],
      ['.github/agents/', '.copilot/agents/'],
      ['.github/hooks/', '.copilot/hooks/'],
      ['.agents/skills/', '.agents/skills/'],
    ],
    left: [
      { project: '.vscode/mcp.json', part: 'tools', says: "VS Code keeps a user's MCP servers in its profile folder, which is not at one place in a home" },
      { project: '.github/prompts/', part: 'commands', says: "VS Code keeps a user's prompt files in its profile folder, which is not at one place in a home" },
    ],
  },
  proof: {
    cli: { package: '@github/copilot', version: '1.0.102', bin: 'copilot' },
    test: 'test/harness/copilot-kilo.test.ts',
    // Lists the workspace's servers (the folder trusted in config.json) without starting them.
    list: { kind: 'command', args: (_names) => ['mcp', 'list', '--json'], expect: ({ server }) => new RegExp(`"${server}":\\s*\\{`) },
  },
  // Lists the workspace's servers only in a folder the user trusts: what answering "Yes" to its trust
  // question records in config.json (test/harness/copilot-kilo.test.ts).
  doctor: {
    reads: ['.mcp.json', '.vscode/mcp.json', '.github/agents/', '.github/hooks/', '.github/prompts/'],
    probe: {
      args: () => ['mcp', 'list', '--json'],
      read: ({ stdout }, { server }, { scope }) => {
        let servers: Record<string, unknown> | undefined
        try {
          servers = (JSON.parse(stdout) as { mcpServers?: Record<string, unknown> }).mcpServers
        } catch {
          return { ready: false, problem: `printed no server list: ${stdout.trim().split('\n')[0] ?? 'nothing'}` }
        }
        if (servers && Object.hasOwn(servers, server)) return { ready: true, sees: `server ${server} configured` }
        return scope === 'project' ? { ready: false, step: 'trust' } : { ready: false, problem: `does not list the server ${server}` }
      },
    },
    fixes: {
      trust: (place) => ({
        says: "does not trust the folder, so it reads none of the workspace's servers",
        ask: `run \`copilot\` in ${place.target} and answer that you trust the folder`,
        edits: [{ file: join(settingsFolder(place, 'COPILOT_HOME', '.copilot'), 'config.json'), format: 'json', path: ['trusted_folders'], op: 'add', value: place.target }],
      }),
    },
  },
} satisfies HarnessDescription
