import { join } from 'node:path'
import { CODEX_ENTRY } from './mcp-formats.js'
import type { JsonValue } from '../../define/types.js'
import type { JsonSchema } from '../plan.js'
import { settingsFolder } from './doctor-steps.js'
import type { CommandFile, DoctorPlace, DoctorReading, HarnessDescription, HarnessFieldProblem } from './types.js'

/**
 * Keys `harness.codex` may add to an agent role file. Codex rejects unknown keys in these files
 * (serde `deny_unknown_fields`: the whole role is dropped with a config warning), so only keys
 * Codex 0.171 accepts there pass; each was checked against the real codex app-server.
 * `name`, `description`, `developer_instructions` and `model` are written from the definition;
 * `mcp_servers` has no effect there (Codex 0.171 gives a spawned agent the session's MCP tools).
 */
export const CODEX_AGENT_KEYS: readonly string[] = [
  'nickname_candidates',
  'model_provider',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'model_context_window',
  'model_auto_compact_token_limit',
  'review_model',
  'service_tier',
  'approval_policy',
  'sandbox_mode',
  'sandbox_workspace_write',
  'shell_environment_policy',
  'web_search',
  'tools',
  'features',
  'skills',
  'compact_prompt',
]

/** Role-file keys unplugin-oac writes from the definition, and where each comes from. */
const OWNED_KEYS: Record<string, string> = {
  name: 'unplugin-oac writes from the agent `name`',
  description: 'unplugin-oac writes from the agent `description`',
  developer_instructions: 'unplugin-oac writes from the agent `prompt` and its tool docs',
  model: 'unplugin-oac writes from the agent `model` (or the config `models`)',
  mcp_servers: 'Codex ignores in an agent file (a spawned agent gets the servers of `.codex/config.toml`, where unplugin-oac merges its own)',
}

function containsNull(value: JsonValue): boolean {
  if (value === null) return true
  if (Array.isArray(value)) return value.some(containsNull)
  if (typeof value === 'object') return Object.values(value).some(containsNull)
  return false
}

function checkFields(fields: Record<string, JsonValue>, agentName: string): HarnessFieldProblem[] {
  const problems: HarnessFieldProblem[] = []
  for (const [key, value] of Object.entries(fields)) {
    const owner = Object.hasOwn(OWNED_KEYS, key) ? OWNED_KEYS[key] : undefined
    if (!CODEX_AGENT_KEYS.includes(key)) {
      problems.push({
        code: 'codex-key-unknown',
        message: `Agent "${agentName}" sets \`harness.codex.${key}\`, which ${owner ?? 'Codex does not accept in an agent file (it would drop the whole agent)'}.`,
        fix: owner
          ? `Remove \`${key}\` from \`harness.codex\`${key === 'mcp_servers' ? '; add other servers to .codex/config.toml' : ''}.`
          : `Use one of: ${CODEX_AGENT_KEYS.join(', ')}.`,
      })
    } else if (containsNull(value)) {
      problems.push({
        code: 'codex-value-null',
        message: `Agent "${agentName}" sets \`harness.codex.${key}\` to a value containing null, which TOML cannot express.`,
        fix: 'Leave the key (or the null entry) out instead.',
      })
    }
  }
  return problems
}

/** A name as Codex gives it to the model: every character but letters, digits and `_` becomes `_`. */
function responsesApiName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_')
}

const STILL_VALIDATES = 'the tool script still validates the real schema'
const untyped = (node: JsonSchema) => node.type === undefined

/** Codex's file in a skill's folder that keeps the skill out of its model's list: the user starts it with `$<skill>`. */
const USER_ONLY = { file: 'agents/openai.yaml', content: 'policy:\n  allow_implicit_invocation: false\n' }

/**
 * Codex 0.171 reads custom prompts only from the user's `~/.codex/prompts`, never from a project. A
 * command becomes a skill only the user starts, `$<command> <arguments>` (Codex then hands the model
 * SKILL.md next to the message), in `.codex/skills`, which Codex reads and the other harnesses but
 * oh-my-pi do not (oh-my-pi is told `disable-model-invocation`).
 */
const CODEX_COMMAND: CommandFile = {
  reader: 'Codex',
  path: (command) => `.codex/skills/${command}/SKILL.md`,
  // A skill has one folder; `$name` ends at the first character outside `[A-Za-z0-9_:-]` (its mention parser), so `$a.b` would start `a`.
  names: { prefix: '$', character: /[a-z0-9_-]/ },
  format: 'skill',
  args: (command) => `the text after \`$${command}\` in the user's message`,
  fields: {},
  syntax: { special: [] },
  harness: 'codex',
  needsDescription: true,
}

interface ListedHook {
  key: string
  sourcePath: string
  currentHash: string
  trustStatus: string
}

/** The reading of `hooks/list`: every hook of the target's `.codex/hooks.json` trusted, or the trust each still needs. */
function readHookTrust(stdout: string, place: DoctorPlace): DoctorReading {
  const answer = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { id?: number; result?: { data: Array<{ hooks: ListedHook[] }> }; error?: { message: string } })
    .find((message) => message.id === 1)
  if (!answer?.result) return { ready: false, problem: `listed no hooks (app-server hooks/list${answer?.error ? `: ${answer.error.message}` : ''})` }
  const file = join(place.target, '.codex/hooks.json')
  const hooks = answer.result.data.flatMap((entry) => entry.hooks).filter((hook) => hook.sourcePath === file)
  const untrusted = hooks.filter((hook) => hook.trustStatus !== 'trusted')
  if (untrusted.length === 0) return { ready: true, sees: `${hooks.length} hook${hooks.length === 1 ? '' : 's'} trusted` }
  return {
    ready: false,
    fix: {
      says: `has not trusted ${untrusted.length} hook${untrusted.length === 1 ? '' : 's'} of .codex/hooks.json, which it skips without a word`,
      ask: `run \`codex\` in ${place.target} and choose "Trust all and continue" (or trust each in /hooks)`,
      edits: untrusted.map((hook) => ({ file: join(settingsFolder(place, 'CODEX_HOME', '.codex'), 'config.toml'), format: 'toml', path: ['hooks', 'state', hook.key, 'trusted_hash'], op: 'set', value: hook.currentHash })),
    },
  }
}

/**
 * Codex: our tools over MCP (`[mcp_servers.<server>]` TOML blocks), one role file per agent. Codex
 * keeps only type, description, enum, items, properties, required, additionalProperties and anyOf
 * of a tool's schema (const becomes a one-value enum); a node left without a type is shown to the
 * model as a string (codex-rs `sanitize_json_schema`).
 */
export const codex = {
  id: 'codex',
  title: 'Codex',
  toolRoute: 'mcp',
  // Codex shows an MCP tool as a function in a namespace per server, each with every character
  // but [A-Za-z0-9_] made `_` (codex-rs `sanitize_responses_api_tool_name`): `word_count` in `mcp__oac_tools`.
  modelToolName: (_server, tool) => responsesApiName(tool),
  toolNamespace: (server) => `mcp__${responsesApiName(server)}`,
  // Codex caps the joined name at 64 (longer names get a hash suffix).
  toolNameCap: { limit: 64, name: (server, tool) => `mcp__${responsesApiName(server)}__${responsesApiName(tool)}` },
  // A spawned agent gets the MCP tools of the session, whatever its role file says (see emit/codex.ts).
  scopesToolsPerAgent: false,
  builtinTools: [],
  builtinReplacement: 'allowed',
  schemaLimits: {
    recursion: { severity: 'error', effect: 'Codex does not follow $ref and shows the model a plain string in its place' },
    'exclusive-union': { severity: 'error', effect: 'Codex drops oneOf and shows the model a plain string there', when: untyped },
    intersection: { severity: 'error', effect: 'Codex drops allOf and shows the model a plain string there' },
    'pattern-properties': { severity: 'warning', effect: `Codex drops patternProperties: the model sees an object without those keys described (${STILL_VALIDATES})` },
    tuple: { severity: 'error', effect: 'Codex drops prefixItems and shows the model an array of its `items` (strings when the tuple has no rest element)' },
  },
  agentFile: (agent) => `.codex/agents/${agent}.toml`,
  // AGENTS.md (an AGENTS.override.md in its place); its bundled defaults cap project instructions at 32 KiB.
  instructions: { agentsMd: 'reads', hiddenBy: ['AGENTS.override.md'], cap: { bytes: 32_768, setting: '`project_doc_max_bytes` in .codex/config.toml' }, home: { file: '.codex/AGENTS.md', hiddenBy: ['.codex/AGENTS.override.md'] } },
  approvals: { written: 'as each tool\'s `approval_mode` (`approve` or `prompt`) in the `[mcp_servers.<server>]` block' },
  // MCP image content in the tool result; the details as the server's log message, which `codex exec` does not print.
  results: { images: 'in-result', details: 'log' },
  // Checked with the real CLI (docs/mcp-servers.md): `${NAME}` reaches a server literally; a variable
  // reaches a stdio server only by `env_vars`, under its own name, and an HTTP server by
  // `bearer_token_env_var` and `env_http_headers`.
  mcp: {
    route: 'config',
    files: [{ path: '.codex/config.toml', format: 'toml', key: ['mcp_servers'], entry: CODEX_ENTRY }],
    unfilled: {
      argument: { says: "fills no variable into a server's arguments (`${NAME}` reaches the server as written)" },
      renamedEnv: { says: 'passes a variable to a stdio server only under its own name (`env_vars`)' },
    },
  },
  // Hooks of `.codex/hooks.json`, which Codex runs once the user trusts each (its `/hooks` list; headless,
  // --dangerously-bypass-hook-trust): with `$SHELL -lc` in the session's folder and no project variable, so
  // the command finds the script itself. The hooks see the shell tool as `Bash` and our tools by their
  // sanitized names (test/harness/hooks.test.ts).
  hooks: {
    wire: 'claude',
    events: { beforeTool: 'PreToolUse', afterTool: 'PostToolUse', sessionStart: 'SessionStart', userPrompt: 'UserPromptSubmit', stop: 'Stop', preCompact: 'PreCompact' },
    builtins: { shell: ['Bash'], write: ['apply_patch'], edit: ['apply_patch'] },
    toolName: (server, tool) => `mcp__${responsesApiName(server)}__${responsesApiName(tool)}`,
    limits: {
      ask: { instead: 'block', says: 'takes `ask` for an invalid answer and runs the tool' },
      allow: { instead: 'ignore', says: 'reads `allow` only together with a new input, and otherwise decides as it would have' },
    },
    registration: { kind: 'command', file: () => '.codex/hooks.json', shape: 'settings', timeout: { key: 'timeout', unit: 's' } },
  },
  checkFields,
  // `find_project_root` and `load_project_layers` (codex-rs/config/src/loader/mod.rs): a thread in a
  // folder with no `.git` at or above it reads `.codex/` there only (test/harness/codex-project-root.test.ts).
  projectRoot: { markers: ['.git'], setting: '`project_root_markers` in ~/.codex/config.toml (e.g. `project_root_markers = [".git", "package.json"]`)' },
  // `.agents/skills` from the working folder up to the repository's root (and `.codex/skills`); the
  // model reads SKILL.md with its shell, resolving relative paths from the skill's folder.
  skills: { folders: ['.agents/skills'], userOnly: USER_ONLY, activation: { via: 'its shell tool' } },
  commands: [CODEX_COMMAND],
  // A plugin's server keeps its own name: Codex 0.171 shows its tools as `<tool>` in `mcp__<server>`, as a
  // project's, and its hooks see `mcp__<server>__<tool>` (test/harness/plugin-codex-pi.test.ts).
  plugin: {
    format: 'codex',
    serverName: (_plugin, server) => server,
    install: 'codex plugin marketplace add <dir> && codex plugin add <plugin>@<plugin>',
    unsupported: {
      agents: {
        says: 'a Codex plugin has no agents (its manifest, .codex-plugin/plugin.json, names skills, mcpServers, apps and hooks)',
        fix: 'Compile the agents into the project for Codex (oac compile --harness codex, without --plugin), or accept that Codex users get the tools, skills, commands and hooks alone.',
      },
    },
  },
  userScope: { paths: [['.codex/', '.codex/'], ['.agents/skills/', '.agents/skills/']] },
  proof: {
    cli: { package: '@openai/codex', version: '0.171.0', bin: 'codex' },
    test: 'test/harness/claude-codex.test.ts',
    // `codex mcp list --json` parses the config (the project's only when trusted) but starts no server.
    list: { kind: 'command', args: () => ['mcp', 'list', '--json'], expect: ({ server }) => new RegExp(`"name":\\s*"${server}"`) },
  },
  // Lists a project's servers only once the folder is trusted (it reads no `.codex/` before).
  doctor: {
    reads: ['.codex/'],
    probe: {
      args: () => ['mcp', 'list', '--json'],
      read: ({ stdout }, { server }, { scope }) => {
        let listed: Array<{ name?: string; enabled?: boolean }>
        try {
          listed = JSON.parse(stdout) as Array<{ name?: string; enabled?: boolean }>
        } catch {
          return { ready: false, problem: `printed no server list: ${stdout.trim().split('\n')[0] ?? 'nothing'}` }
        }
        const ours = listed.find((entry) => entry.name === server)
        if (!ours) return scope === 'project' ? { ready: false, step: 'trust' } : { ready: false, problem: `does not list the server ${server}` }
        if (ours.enabled === false) return { ready: false, problem: `lists the server ${server} as disabled` }
        return { ready: true, sees: `server ${server} configured` }
      },
    },
    // Its app-server's `hooks/list` says each hook's trust, and the hash a trust must hold (docs/hooks.md, "Trust").
    hooks: {
      file: '.codex/hooks.json',
      probe: {
        args: () => ['app-server', '--disable', 'plugins', '--disable', 'remote_plugin', '-c', 'analytics.enabled=false'],
        session: {
          lines: ({ target }) => [
            JSON.stringify({ id: 0, method: 'initialize', params: { clientInfo: { name: 'oac-doctor', version: '1' } } }),
            JSON.stringify({ method: 'initialized' }),
            JSON.stringify({ id: 1, method: 'hooks/list', params: { cwds: [target] } }),
          ],
          until: /^\{"id":1,/m,
        },
        read: ({ stdout }, _names, place) => readHookTrust(stdout, place),
      },
    },
    fixes: {
      trust: (place) => ({
        says: 'does not trust the folder, so it reads nothing of .codex/',
        ask: `run \`codex\` in ${place.target} and trust it`,
        edits: [{ file: join(settingsFolder(place, 'CODEX_HOME', '.codex'), 'config.toml'), format: 'toml', path: ['projects', place.target, 'trust_level'], op: 'set', value: 'trusted' }],
      }),
    },
  },
} satisfies HarnessDescription
