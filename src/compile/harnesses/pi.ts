import { PI_SYNTAX } from './text-syntax.js'
import type { HarnessDescription } from './types.js'

const GOOGLE_REJECTS = 'and Google (Gemini) models reject it'

/** pi: one extension registering every tool with TypeBox parameters, passed to the model as plain JSON Schema. No agent files. */
export const pi = {
  id: 'pi',
  title: 'pi',
  toolRoute: 'shim',
  modelToolName: (_server, tool) => tool,
  scopesToolsPerAgent: false,
  // An extension tool with one of these names silently replaces the built-in.
  builtinTools: ['bash', 'edit', 'find', 'grep', 'ls', 'powershell', 'read', 'write'],
  builtinReplacement: 'allowed',
  schemaLimits: {
    'exclusive-union': { severity: 'warning', effect: `pi passes oneOf to the model as is, ${GOOGLE_REJECTS}` },
    union: { severity: 'warning', effect: `pi passes anyOf to the model as is, ${GOOGLE_REJECTS}` },
    const: { severity: 'warning', effect: `pi passes const to the model as is, ${GOOGLE_REJECTS}` },
  },
  agentFile: null,
  // AGENTS.md; no path-scoped rules.
  instructions: { agentsMd: 'reads', home: { file: '.pi/agent/AGENTS.md' } },
  approvals: { written: 'in the extension: a tool that asks confirms with the user before it runs (pi asks for no tool by itself)' },
  // Image blocks in a user message after the results, where the model's `input` lists `image`; `result.details` in `--mode json`.
  results: { images: 'after-result', details: 'output' },
  // pi has no MCP. pi 0.73 awaits an extension's factory with no time limit (loader.js `await factory(api)`),
  // so the bridge bounds its own wait; the model providers take tool names of up to 64 characters.
  mcp: { route: 'bridge', bridge: { waitMs: 5_000, nameMax: 64 } },
  // Hooks in-process: a generated extension, `.pi/extensions/<server>-hooks.ts`. `ask` confirms in the UI and
  // blocks without one. The agent's end is only watched: pi hands extensions its events through a queue the
  // agent loop does not wait for (AgentSession._handleAgentEvent), so a follow-up sent at the end of the last
  // turn comes after the loop has looked for one, and `pi -p` ends without it.
  hooks: {
    wire: 'pi',
    events: { beforeTool: 'tool_call', afterTool: 'tool_result', sessionStart: 'session_start', userPrompt: 'before_agent_start', stop: 'agent_end', preCompact: 'session_before_compact' },
    builtins: { shell: ['bash'], read: ['read'], write: ['write'], edit: ['edit'], search: ['grep', 'find'] },
    toolName: (_server, tool) => tool,
    limits: { keepGoing: { instead: 'ignore', says: 'tells an extension that the agent stopped only after it has (its loop does not wait for the extension)' } },
    registration: { kind: 'plugin', file: (server) => `.pi/extensions/${server}-hooks.ts` },
  },
  checkFields: () => [],
  // `.pi/skills` and `.agents/skills` from the working folder up to the git root; the model reads SKILL.md
  // with its read tool, told to resolve relative paths from the skill's folder.
  skills: { folders: ['.agents/skills'], userOnly: { field: 'disable-model-invocation' }, activation: { via: 'its read tool' } },
  commands: [
    // `$1` is the first word (`substituteArgs`); nothing runs a shell command.
    // One folder (`loadTemplatesFromDir` reads no subfolder), a template named by its file.
    { reader: 'pi', path: (command) => `.pi/prompts/${command}.md`, names: { prefix: '/', character: /[a-z0-9_.-]/ }, format: 'markdown', args: () => '$ARGUMENTS', fields: { argumentHint: 'argument-hint' }, syntax: PI_SYNTAX, harness: 'pi', positional: (n) => `$${n}` },
  ],
  // A pi package (`package.json` `pi`); no MCP server, so the server's name is not shown (test/harness/plugin-codex-pi.test.ts).
  plugin: { format: 'pi', serverName: (_plugin, server) => server, install: 'pi install <dir>' },
  userScope: { paths: [['.pi/', '.pi/agent/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi' },
    test: 'test/harness/opencode-pi-omp.test.ts',
    // pi has no command that lists tools; its SDK loads the project's extensions.
    list: { kind: 'sdk', module: '@mariozechner/pi-coding-agent', call: 'createAgentSession({ cwd }).session.getAllTools()', expect: ({ tool }) => tool },
  },
  doctor: {
    reads: ['.pi/'],
    probe: { unprobed: 'it has no command that lists its tools without a model; it loads .pi/extensions/ at start, with nothing to approve' },
    fixes: {},
  },
} satisfies HarnessDescription
