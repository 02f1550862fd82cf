import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { parse as parseJsonc, type ParseError, printParseErrorCode } from 'jsonc-parser'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { stringify as stringifyYaml } from 'yaml'
import { gemini } from '../../src/compile/harnesses/gemini.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import { repoRoot } from '../util/project.js'
import { installHarnessPackage, pluginTemplate, preinstallPlugin } from './cache.js'
import { loopbackOnly } from './loopback-only.js'
import { bounded, type BoundedRun, RUN_TIMEOUT_MS } from './project.js'
import type { ScriptedModel, SeenRequest, ToolCall, Turn } from './scripted-model.js'

/*
 * One driver per harness CLI: how to run it headless against the scripted model (scripted-model.ts)
 * in a compiled project, how its model starts a sub-agent and ends one, and what the CLI wraps
 * around a tool result. The tier's tests script conversations through these; a new proof that needs
 * a model (rich tool results, say) is a new script over the same drivers.
 */

/**
 * Where one run happens: the compiled project (or any folder, for a user-scope install), and a home
 * (`isolatedHome()`, fresh or holding a user-scope install) the driver merges the CLI's user settings into.
 */
export interface RunContext {
  project: string
  plan: Plan
  home: string
  env: NodeJS.ProcessEnv
  /** The first user message (default `Go.`). */
  prompt?: string
  /** Arguments for the CLI beyond the driver's own (Copilot's `--agent <id>`). */
  args?: string[]
  /**
   * Leaves out the flag that approves every tool call (opencode's and Kilo's `--auto`, Codex's bypass,
   * Gemini CLI's yolo mode, Copilot's `--allow-all-tools`, Qwen Code's `--yolo`), so the project's
   * approval rules decide, as in a user's headless run; by default a driver approves all, so that a
   * conversation runs to its end.
   */
  keepApprovals?: boolean
}

export interface HarnessDriver {
  id: Harness
  /** The CLI and its pinned version (the description's `proof.cli`), for test titles. */
  title: string
  /** Installs the pinned CLI (once, into .harness-cache/). */
  install(): Promise<void>
  /** Runs the CLI once, headless, in the project against `model`, with only loopback where the machine allows: the main agent's whole turn. */
  run(model: ScriptedModel, context: RunContext): Promise<BoundedRun>
  /**
   * The main agent's turns that start a sub-agent and get its answer back, or undefined where the
   * harness has no sub-agents the project defines (pi, omp).
   */
  startAgent?(agent: string): Turn[]
  /** A sub-agent's last turn, handing `answer` back to the main agent. */
  finishAgent(answer: string): Turn
  /** A tool result's text without what the harness wraps around it. */
  resultText(text: string): string
}

/** The call of one of our tools by the name the harness's description says its model sees (the name the prompts document). */
export function toolCall(id: Harness, plan: Plan, tool: string, input: Record<string, unknown>): ToolCall {
  const description = harness(id)
  const namespace = description.toolNamespace?.(plan.serverName)
  return { name: description.modelToolName(plan.serverName, tool), ...(namespace ? { namespace } : {}), input }
}

/** Runs a harness CLI, bounded, with nothing but its loopback to reach the scripted model on (where the machine allows). */
export function harnessRun(model: ScriptedModel, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<BoundedRun> {
  const isolated = loopbackOnly(model, command, args)
  return bounded(isolated.command, isolated.args, { ...options, timeoutMs: RUN_TIMEOUT_MS })
}

/*
 * A driver's settings go into the user's settings file (the home's): a home may already hold what a
 * user-scope install (`scope: 'user'`) merged there, MCP servers, hooks and permissions, which the run
 * must keep. In a fresh home the file is exactly what the driver asks for.
 */

type Settings = Record<string, unknown>

const isSettings = (value: unknown): value is Settings => typeof value === 'object' && value !== null && !Array.isArray(value)

/** `theirs` with `ours` merged in: objects key by key, a list gains the items it lacks, any other value is ours. */
function mergeSettings(theirs: unknown, ours: unknown): unknown {
  if (isSettings(theirs) && isSettings(ours)) {
    const merged: Settings = { ...theirs }
    for (const [key, value] of Object.entries(ours)) merged[key] = key in theirs ? mergeSettings(theirs[key], value) : value
    return merged
  }
  if (Array.isArray(theirs) && Array.isArray(ours)) return [...theirs, ...ours.filter((item) => !theirs.some((kept) => isDeepStrictEqual(kept, item)))]
  return ours
}

/** Merges `settings` into a JSON settings file (comments allowed, as Gemini CLI's; they are not kept), or writes it. */
async function mergeJsonSettings(file: string, settings: Settings): Promise<void> {
  if (!existsSync(file)) return writeFile(file, JSON.stringify(settings))
  const errors: ParseError[] = []
  const theirs: unknown = parseJsonc(await readFile(file, 'utf8'), errors, { allowTrailingComma: true })
  if (errors.length > 0) throw new Error(`${file} is not JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset})`)
  await writeFile(file, JSON.stringify(mergeSettings(theirs, settings)))
}

/** Merges `config` into a TOML config file (Codex's), or writes it. */
async function mergeTomlSettings(file: string, config: Settings): Promise<void> {
  const theirs = existsSync(file) ? parseToml(await readFile(file, 'utf8')) : {}
  await writeFile(file, stringifyToml(mergeSettings(theirs, config) as Settings))
}

const textAnswer = (answer: string): Turn => ({ text: answer })
const asIs = (text: string) => text

/**
 * Claude Code and Qwen Code hand the model `(<tool> completed with no output)` in place of a result
 * whose text is empty or blank (Claude Code's tool-result step; Qwen Code's `truncateLlmContent`).
 */
const noOutput = (text: string) => (/^\(\S+ completed with no output\)\s*$/.test(text) ? '' : text)

/** The installed package's folder, per description: `proof.cli` names the package and version. */
async function installed(id: Harness, extra: string[] = []): Promise<string> {
  const { cli } = harness(id).proof
  return installHarnessPackage(cli.package, cli.version, extra)
}

function title(id: Harness): string {
  return `${harness(id).title} ${harness(id).proof.cli.version}`
}

/* ---------------------------------------------------------------- Claude Code */

function claudeDriver(): HarnessDriver {
  let claude = ''
  return {
    id: 'claude',
    title: title('claude'),
    async install() {
      claude = join(await installed('claude'), 'node_modules/.bin/claude')
    },
    async run(model, { project, plan, home, env, prompt = 'Go.', args = [] }) {
      await mkdir(join(home, '.claude'), { recursive: true })
      // Approves the project's `.mcp.json` server and lets its tools run without a prompt.
      await mergeJsonSettings(join(home, '.claude/settings.json'), { enableAllProjectMcpServers: true, permissions: { allow: [`mcp__${plan.serverName}`] } })
      return harnessRun(model, claude, ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', ...args], {
        cwd: project,
        env: {
          ...env,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'scripted-model-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          MCP_CONNECTION_NONBLOCKING: 'false',
          // Without this, MCP tools sit behind ToolSearch and the requests' `tools` would not show them.
          ENABLE_TOOL_SEARCH: 'false',
        },
      })
    },
    // In the foreground, so the sub-agent's answer is the tool result (in the background it comes later, as a notification).
    startAgent: (agent) => [{ calls: [{ name: 'Agent', input: { subagent_type: agent, description: `Ask the ${agent}`, prompt: 'Go.', run_in_background: false } }] }],
    finishAgent: textAnswer,
    // Claude Code appends a `<system-reminder>` block (tokens left) to each tool result.
    resultText: (text) => noOutput(text.replace(/\n?<system-reminder>[\s\S]*?<\/system-reminder>/g, '')),
  }
}

/* ---------------------------------------------------------------- opencode and Kilo */

/**
 * An OpenAI-compatible provider (bundled in opencode and Kilo) pointed at the endpoint, as `<config file>`'s
 * model, which takes images (so a tool's image reaches it: test/harness/rich-results.test.ts).
 */
function scriptedProvider(model: ScriptedModel): Record<string, unknown> {
  const provider = { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: `${model.url}/v1`, apiKey: 'scripted-model-key' }, models: { scripted: { name: 'Scripted', tool_call: true, attachment: true, modalities: { input: ['text', 'image'], output: ['text'] } } } }
  return { model: 'scripted/scripted', provider: { scripted: provider } }
}

/** What tells opencode and its fork Kilo apart, for a run. */
interface OpencodeFamily {
  /** The binary, also the name of its folder in `$XDG_CONFIG_HOME`. */
  bin: string
  /** The plugin package it installs into each config folder, and the version to preinstall there. */
  plugin: string
  pluginVersion: string
  /** Packages installed beside the CLI. */
  extra: string[]
  /** The project's config folder and the config file the provider goes into. */
  folder: string
  config: string
  /** The prefix of its environment variables (`<PREFIX>_DISABLE_AUTOUPDATE`). */
  envPrefix: string
  /** Settings that spare a run work no proof needs. */
  quiet?: { env: NodeJS.ProcessEnv; config: Record<string, unknown> }
}

/** opencode or Kilo: the plugin preinstalled in the user's and the project's config folder, the provider in the project's config file. */
function opencodeFamilyDriver(id: 'opencode' | 'kilo', family: OpencodeFamily): HarnessDriver {
  let bin = ''
  return {
    id,
    title: title(id),
    async install() {
      bin = join(await installed(id, family.extra), 'node_modules/.bin', family.bin)
    },
    async run(model, { project, env, prompt = 'Go.', args = [], keepApprovals }) {
      const template = await pluginTemplate(family.plugin, family.pluginVersion)
      await preinstallPlugin(template, join(env.XDG_CONFIG_HOME!, family.bin))
      await preinstallPlugin(template, join(project, family.folder))
      const config = join(project, family.config)
      await writeFile(config, JSON.stringify({ ...scriptedProvider(model), ...family.quiet?.config }))
      try {
        const approvals = keepApprovals ? [] : ['--auto']
        return await harnessRun(model, bin, ['run', '--format', 'json', ...approvals, ...args, prompt], {
          cwd: project,
          env: { ...env, [`${family.envPrefix}_DISABLE_AUTOUPDATE`]: '1', [`${family.envPrefix}_DISABLE_MODELS_FETCH`]: '1', ...family.quiet?.env },
        })
      } finally {
        await rm(config)
      }
    },
    startAgent: (agent) => [{ calls: [{ name: 'task', input: { subagent_type: agent, description: `Ask the ${agent}`, prompt: 'Go.' } }] }],
    finishAgent: textAnswer,
    resultText: asIs,
  }
}

/* ---------------------------------------------------------------- Codex */

/** The namespace Codex shows its multi-agent tools in, read from the request rather than assumed. */
function codexAgentTool(request: Omit<SeenRequest, 'reply'>, name: string, input: Record<string, unknown>): ToolCall {
  const shown = request.tools.find((tool) => tool.name === name && tool.namespace !== undefined)
  if (!shown) throw new Error(`Codex showed no ${name} tool`)
  return { name, namespace: shown.namespace, input }
}

function codexDriver(): HarnessDriver {
  let codex = ''
  return {
    id: 'codex',
    title: title('codex'),
    async install() {
      codex = join(await installed('codex'), 'node_modules/.bin/codex')
    },
    async run(model, { project, env, prompt = 'Go.', args = [], keepApprovals }) {
      await mkdir(env.CODEX_HOME!, { recursive: true })
      // A Responses API provider pointed at the endpoint; the project is trusted so its `.codex/` loads.
      const config = {
        model: 'scripted',
        model_provider: 'scripted',
        model_providers: { scripted: { name: 'Scripted', base_url: `${model.url}/v1`, wire_api: 'responses' } },
        projects: { [project]: { trust_level: 'trusted' } },
      }
      await mergeTomlSettings(join(env.CODEX_HOME!, 'config.toml'), config)
      const offline = ['--disable', 'plugins', '--disable', 'remote_plugin', '-c', 'analytics.enabled=false']
      const approvals = keepApprovals ? [] : ['--dangerously-bypass-approvals-and-sandbox']
      return harnessRun(model, codex, ['exec', ...offline, ...approvals, '--json', ...args, prompt], { cwd: project, env })
    },
    // `spawn_agent` returns at once with the agent's id; `wait_agent` returns its final answer.
    startAgent: (agent) => [
      (request) => ({ calls: [codexAgentTool(request, 'spawn_agent', { agent_type: agent, message: 'Go.' })] }),
      (request) => {
        const { agent_id } = JSON.parse(request.toolResults[0]!.text) as { agent_id: string }
        return { calls: [codexAgentTool(request, 'wait_agent', { targets: [agent_id], timeout_ms: 60_000 })] }
      },
    ],
    finishAgent: textAnswer,
    // Codex hands an MCP tool's text to the model after a `Wall time: <seconds> seconds` line.
    resultText: (text) => text.replace(/^Wall time: [\d.]+ seconds\nOutput:/, ''),
  }
}

/* ---------------------------------------------------------------- pi and omp */

/** pi's and omp's custom-model files: an OpenAI chat completions provider pointed at the endpoint, whose model takes images. */
const customProvider = (url: string) => ({ providers: { scripted: { baseUrl: `${url}/v1`, api: 'openai-completions', apiKey: 'scripted-model-key', models: [{ id: 'scripted', input: ['text', 'image'] }] } } })

function piDriver(): HarnessDriver {
  // The devDependency, at the version the description pins.
  const pi = join(repoRoot, 'node_modules/.bin/pi')
  return {
    id: 'pi',
    title: title('pi'),
    async install() {},
    async run(model, { project, env, prompt = 'Go.', args = [] }) {
      await mkdir(env.PI_CODING_AGENT_DIR!, { recursive: true })
      await writeFile(join(env.PI_CODING_AGENT_DIR!, 'models.json'), JSON.stringify(customProvider(model.url)))
      return harnessRun(model, pi, ['-p', '--offline', '--no-session', '--mode', 'json', '--model', 'scripted/scripted', ...args, prompt], { cwd: project, env })
    },
    finishAgent: textAnswer,
    resultText: asIs,
  }
}

/** The bun that runs oh-my-pi (it runs only under bun). */
export const BUN = '1.4.5'

function ompDriver(): HarnessDriver {
  let bin = ''
  return {
    id: 'omp',
    title: `${title('omp')} under bun ${BUN}`,
    async install() {
      bin = join(await installed('omp', [`bun@${BUN}`]), 'node_modules/.bin')
    },
    async run(model, { project, env, prompt = 'Go.', args = [] }) {
      await mkdir(env.PI_CODING_AGENT_DIR!, { recursive: true })
      await writeFile(join(env.PI_CODING_AGENT_DIR!, 'models.yml'), stringifyYaml(customProvider(model.url)))
      const omp = [join(bin, 'omp'), '-p', '--no-session', '--no-title', '--no-lsp', '--mode', 'json', '--model', 'scripted/scripted', ...args, prompt]
      return harnessRun(model, join(bin, 'bun'), omp, { cwd: project, env: { ...env, PATH: `${bin}:${env.PATH}` } })
    },
    finishAgent: textAnswer,
    resultText: asIs,
  }
}

/* ---------------------------------------------------------------- Gemini CLI */

function geminiDriver(): HarnessDriver {
  let bin = ''
  return {
    id: 'gemini',
    title: title('gemini'),
    async install() {
      bin = join(await installed('gemini'), 'node_modules/.bin/gemini')
    },
    async run(model, { project, plan, home, env, prompt = 'Go.', args = [], keepApprovals }) {
      const geminiDir = join(home, '.gemini')
      await mkdir(join(geminiDir, 'acknowledgments'), { recursive: true })
      // The sha256 acknowledgement a user gives once per project agent in the interactive UI (a
      // user-scope install's agents are the home's, which Gemini CLI loads without one).
      const acknowledged: Record<string, string> = {}
      for (const { name } of plan.agents) {
        const file = join(project, gemini.agentFile(name))
        if (existsSync(file)) acknowledged[name] = createHash('sha256').update(await readFile(file, 'utf8')).digest('hex')
      }
      await writeFile(join(geminiDir, 'acknowledgments/agents.json'), JSON.stringify({ [project]: acknowledged }))
      await mergeJsonSettings(join(geminiDir, 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } } })
      // A named model: with none, a routing classifier asks the endpoint first and retries its odd answers for a minute.
      const approvals = keepApprovals ? [] : ['--approval-mode', 'yolo']
      return harnessRun(model, bin, ['-p', prompt, '-o', 'json', ...approvals, '-m', 'gemini-2.5-flash', ...args], {
        cwd: project,
        env: { ...env, GEMINI_CLI_HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'scripted-model-key', GOOGLE_GEMINI_BASE_URL: model.url },
      })
    },
    startAgent: (agent) => [{ calls: [{ name: 'invoke_agent', input: { agent_name: agent, prompt: 'Go.' } }] }],
    // A Gemini sub-agent ends by calling `complete_task`; its `result` is what the main agent gets.
    finishAgent: (answer) => ({ calls: [{ name: 'complete_task', input: { result: answer } }] }),
    // Gemini CLI wraps an MCP tool's text in `<untrusted_context>` lines.
    resultText: (text) => text.replace(/^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/, '$1'),
  }
}

/* ---------------------------------------------------------------- GitHub Copilot CLI */

function copilotDriver(): HarnessDriver {
  let copilot = ''
  return {
    id: 'copilot',
    title: title('copilot'),
    async install() {
      copilot = join(await installed('copilot'), 'node_modules/.bin/copilot')
    },
    async run(model, { project, home, env, prompt = 'Go.', args = [], keepApprovals }) {
      const copilotHome = join(home, '.copilot')
      await mkdir(copilotHome, { recursive: true })
      // The trust Copilot records when the user answers "yes, trust this folder".
      await writeFile(join(copilotHome, 'config.json'), JSON.stringify({ trusted_folders: [project] }))
      const approvals = keepApprovals ? [] : ['--allow-all-tools']
      return harnessRun(model, copilot, ['-p', prompt, ...approvals, ...args], {
        cwd: project,
        env: {
          ...env,
          COPILOT_HOME: copilotHome,
          // Its offline BYOK mode: no GitHub account, the model from this provider.
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_MODEL: 'scripted',
          GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP: 'true',
        },
      })
    },
    startAgent: (agent) => [{ calls: [{ name: 'task', input: { agent_type: agent, name: agent, description: `Ask the ${agent}`, prompt: 'Go.', mode: 'sync' } }] }],
    finishAgent: textAnswer,
    resultText: asIs,
  }
}

/* ---------------------------------------------------------------- Qwen Code */

export const NODE22 = '22.23.3'

/** Qwen Code's entry script and the Node 22 it needs (the `node-<platform>-<arch>` package), installed once. */
export async function installQwen(): Promise<{ node: string; cli: string }> {
  const platform = `node-${process.platform}-${process.arch}`
  const node = join(await installHarnessPackage(platform, NODE22), 'node_modules', platform, 'bin/node')
  return { node, cli: join(await installed('qwen'), 'node_modules/@qwen-code/qwen-code/cli.js') }
}

function qwenDriver(): HarnessDriver {
  let node = ''
  let cli = ''
  return {
    id: 'qwen',
    title: `${title('qwen')} under Node ${NODE22}`,
    async install() {
      ;({ node, cli } = await installQwen())
    },
    async run(model, { project, plan, home, env, prompt = 'Go.', args = [], keepApprovals }) {
      const qwenEnv = { ...env, PATH: `${join(node, '..')}:${env.PATH}` }
      await mkdir(join(home, '.qwen'), { recursive: true })
      // Its memory agents would ask the model after the run; they are no part of a tool's proof. Qwen's
      // table of models says `scripted` takes text only: the model's modalities say it takes images.
      await mergeJsonSettings(join(home, '.qwen/settings.json'), { memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false }, model: { generationConfig: { modalities: { image: true } } } })
      // The user's once-per-project step: project MCP servers wait for approval (in a folder with none, it says so and succeeds).
      const approved = await harnessRun(model, node, [cli, 'mcp', 'approve', plan.serverName], { cwd: project, env: qwenEnv })
      if (approved.code !== 0) return approved
      const approvals = keepApprovals ? [] : ['--yolo']
      return harnessRun(model, node, [cli, '-p', prompt, ...approvals, ...args], {
        cwd: project,
        env: { ...qwenEnv, OPENAI_API_KEY: 'scripted-model-key', OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_MODEL: 'scripted', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' },
      })
    },
    // In the foreground: a top-level sub-agent runs in the background by default, and its answer would come later.
    startAgent: (agent) => [{ calls: [{ name: 'agent', input: { subagent_type: agent, description: `Ask the ${agent}`, prompt: 'Go.', run_in_background: false } }] }],
    finishAgent: textAnswer,
    resultText: noOutput,
  }
}

/* ---------------------------------------------------------------- Cline */

function clineDriver(): HarnessDriver {
  let cline = ''
  return {
    id: 'cline',
    title: title('cline'),
    async install() {
      cline = join(await installed('cline'), 'node_modules/.bin/cline')
    },
    // Cline takes a one-word prompt for an unknown command: the default prompt has two words.
    async run(model, { project, env, prompt = 'Go on.', args = [], keepApprovals }) {
      const clineEnv = {
        ...env,
        // In the CLI's own process: by default a run starts a hub daemon that outlives it.
        CLINE_SESSION_BACKEND_MODE: 'local',
        // The plugin sandbox must start and import the plugins within 4 s by default, or the run goes on without
        // them. Its own start (a Node process loading Cline's modules) took 2.1 to 3.8 s before any plugin was
        // evaluated on this tier's shared two-core machine, and each run's fresh TMPDIR makes its TypeScript
        // loader (jiti) cold; our modules add about 0.5 to 1.5 s then (docs/cline.md). Not a limit of ours to lift.
        CLINE_PLUGIN_IMPORT_TIMEOUT_MS: '60000',
      }
      // The user's one-time step: an OpenAI-compatible provider pointed at the endpoint.
      const auth = await harnessRun(model, cline, ['auth', '-p', 'openai-compatible', '-k', 'scripted-model-key', '-m', 'scripted', '-b', `${model.url}/v1`], { cwd: project, env: clineEnv })
      if (auth.code !== 0) return auth
      const approvals = keepApprovals ? ['--auto-approve', 'false'] : []
      return harnessRun(model, cline, ['--json', ...approvals, ...args, prompt], { cwd: project, env: clineEnv })
    },
    finishAgent: textAnswer,
    resultText: asIs,
  }
}

/** The newest @kilocode/plugin on npm (Kilo 7.7.7 asks for its own version, which is not published). */
export const KILO_PLUGIN = '7.3.1'

const OPENCODE_VERSION = harness('opencode').proof.cli.version

/** The drivers, one per harness; each `install()`s its CLI before a run. */
export const DRIVERS: Record<Harness, HarnessDriver> = {
  opencode: opencodeFamilyDriver('opencode', {
    bin: 'opencode',
    plugin: '@opencode-ai/plugin',
    pluginVersion: OPENCODE_VERSION,
    extra: [`@opencode-ai/plugin@${OPENCODE_VERSION}`],
    folder: '.opencode',
    config: 'opencode.json',
    envPrefix: 'OPENCODE',
  }),
  claude: claudeDriver(),
  cline: clineDriver(),
  codex: codexDriver(),
  pi: piDriver(),
  omp: ompDriver(),
  gemini: geminiDriver(),
  copilot: copilotDriver(),
  qwen: qwenDriver(),
  kilo: opencodeFamilyDriver('kilo', {
    bin: 'kilo',
    plugin: '@kilocode/plugin',
    pluginVersion: KILO_PLUGIN,
    extra: [],
    folder: '.kilo',
    config: 'kilo.json',
    envPrefix: 'KILO',
    // No telemetry (offline, its flush waits seconds at exit) and no git snapshot of the project at each step: Kilo is the slowest CLI of the tier.
    quiet: { env: { KILO_TELEMETRY_LEVEL: 'off' }, config: { snapshot: false } },
  }),
}
