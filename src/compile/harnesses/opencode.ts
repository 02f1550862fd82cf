import { join } from 'node:path'
import type { Harness } from '../../define/types.js'
import { pluginPackageNeeds, readToolsMap, xdgConfigFolder } from './doctor-steps.js'
import { OPENCODE_ENTRY } from './mcp-formats.js'
import { OPENCODE_SYNTAX } from './text-syntax.js'
import type { CommandFile, HarnessDescription, SkillSupport } from './types.js'

/** How opencode's and Kilo's `permission` maps name a server's tools: `<server>_<tool>`, as the model sees them. */
export const OPENCODE_TOOL_NAMES = { server: (server: string) => `${server}_*`, tool: (server: string, tool: string) => `${server}_${tool}` }

/** opencode's and Kilo's skills: both folders, `.agents/skills` winning a name in both (`debug skill` lists it once). */
export const OPENCODE_SKILLS: SkillSupport = {
  folders: ['.agents/skills', '.claude/skills'],
  userOnly: { unsupported: 'opencode 1.18 and Kilo 7.7 read no field that keeps a skill from the model' },
  activation: { tool: 'skill' },
}

/** A command file of opencode's format in `folder`: `$ARGUMENTS`, and `agent` to run it as that agent. */
export function opencodeCommand(reader: string, folder: string, id: Harness): CommandFile {
  return {
    reader,
    path: (command) => `${folder}/${command}.md`,
    // 1.18 names a command by its path under the folder (`{command,commands}/**/*.md`): `git/commit.md` is `/git/commit`.
    names: { prefix: '/', folders: '/', character: /[a-z0-9_.-]/ },
    format: 'markdown',
    args: () => '$ARGUMENTS',
    fields: { model: 'model', agent: (agent) => ({ agent }) },
    syntax: OPENCODE_SYNTAX,
    harness: id,
    // 1.18 counts from 1, and the highest placeholder of the text takes the rest of the words (`SessionPrompt.command`).
    positional: (n) => `$${n}`,
    shell: (command) => `!\`${command}\``,
  }
}

/** opencode: a native `.opencode/tool/<tool>.ts` shim per tool (zod 4.1 arguments), one agent file per agent. */
export const opencode = {
  id: 'opencode',
  title: 'opencode',
  toolRoute: 'shim',
  modelToolName: (_server, tool) => tool,
  scopesToolsPerAgent: true,
  // opencode 1.x tool ids; a custom tool with one of these names takes the built-in's place.
  builtinTools: [
    'apply_patch', 'bash', 'batch', 'codesearch', 'edit', 'glob', 'grep', 'invalid', 'list', 'lsp', 'multiedit',
    'patch', 'plan_enter', 'plan_exit', 'question', 'read', 'skill', 'task', 'todoread', 'todowrite', 'webfetch',
    'websearch', 'write',
  ],
  builtinReplacement: 'allowed',
  schemaLimits: {
    // The shim's zod has no way to refer back to a schema.
    recursion: { severity: 'warning', effect: 'the opencode shim types the recursive field as unknown (z.unknown(); the tool script still validates the real schema)' },
  },
  agentFile: (agent) => `.opencode/agent/${agent}.md`,
  // AGENTS.md (CLAUDE.md only where there is none); no path-scoped rules.
  instructions: { agentsMd: 'reads', home: { file: '.config/opencode/AGENTS.md' } },
  // Every field is written as given over the generated ones; a `permission` map refines ours key by key.
  approvals: { written: 'as `allow` or `ask` in the `permission` of each agent file and of `.opencode/opencode.json` (every agent); the tool shim asks opencode before it runs' },
  // The shim's file attachments reach the model in a user message after the results; `metadata.details` in `opencode run --format json`.
  results: { images: 'after-result', details: 'output' },
  // A server's tools are `<server>_<tool>` (docs/mcp-servers.md), and a `permission` key takes a wildcard.
  mcp: { route: 'config', files: [{ path: '.opencode/opencode.json', format: 'json', key: ['mcp'], entry: OPENCODE_ENTRY }], toolNames: OPENCODE_TOOL_NAMES },
  // Hooks in-process: a generated plugin, `.opencode/plugins/<server>-hooks.ts` (a throw blocks a tool, its
  // arguments are changed in place; session start adds to the system prompt).
  hooks: {
    wire: 'opencode',
    events: { beforeTool: 'tool.execute.before', afterTool: 'tool.execute.after', sessionStart: 'experimental.chat.system.transform', userPrompt: 'chat.message', stop: 'session.idle', preCompact: 'experimental.session.compacting' },
    builtins: { shell: ['bash'], read: ['read'], write: ['write'], edit: ['edit', 'multiedit', 'apply_patch', 'patch'], search: ['grep', 'glob'], fetch: ['webfetch'] },
    toolName: (_server, tool) => tool,
    limits: {
      ask: { instead: 'block', says: 'has no way for a plugin to ask the user' },
      keepGoing: { instead: 'ignore', says: 'lets a plugin only watch the end of a turn (`opencode run` exits before another)' },
    },
    registration: { kind: 'plugin', file: (server) => `.opencode/plugins/${server}-hooks.ts` },
  },
  checkFields: () => [],
  skills: OPENCODE_SKILLS,
  commands: [opencodeCommand('opencode', '.opencode/command', 'opencode')],
  // The folder's `opencode/index.mjs` (package.json `main`) by the folder's path or the package's npm name; a plugin's
  // tools are shown by their own names, so no server name goes into them (test/harness/plugin-opencode.test.ts). Its
  // `config` hook adds the MCP servers, which 1.18 starts as its config's (plugins are initialised before its MCP service).
  plugin: {
    format: 'opencode',
    serverName: (_plugin, server) => server,
    install: '"plugin": ["<dir>"] (or the npm name) in opencode.json or ~/.config/opencode/opencode.json',
  },
  userScope: { paths: [['.opencode/', '.config/opencode/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
    test: 'test/harness/opencode-pi-omp.test.ts',
    // Prints the agent's resolved tools map as JSON: its own tools true.
    list: { kind: 'command', args: ({ agent }) => ['debug', 'agent', agent], expect: ({ tool }) => new RegExp(`"${tool}":\\s*true`) },
  },
  // `debug agent build` prints the default agent's tools map, each project tool `true` once loaded.
  doctor: {
    reads: ['.opencode/'],
    toolFile: (tool) => `.opencode/tool/${tool}.ts`,
    needs: (place, version) =>
      pluginPackageNeeds(
        place,
        [...(place.scope === 'project' ? [join(place.target, '.opencode')] : []), xdgConfigFolder(place, 'opencode')],
        `@opencode-ai/plugin${version ? `@${version}` : ''}`,
        'which opencode installs there on start (offline, or behind a registry mirror without that version, it waits and loads no tool)',
      ),
    probe: {
      args: () => ['debug', 'agent', 'build'],
      env: { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' },
      read: ({ stdout }, names) => readToolsMap(stdout, names, 'agent build'),
    },
    fixes: {},
  },
} satisfies HarnessDescription
