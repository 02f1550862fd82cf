import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome, pluginTemplate, preinstallPlugin } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, installQwen, KILO_PLUGIN, type RunContext } from './drivers.js'
import { offlineRun } from './offline.js'
import { compile } from '../../src/api.js'
import { copyProject } from '../util/project.js'
import { type BoundedRun, type CompiledProject, direct } from './project.js'
import { type ScriptedModel, type SeenRequest, startScriptedModel, type ToolCall, type Turn } from './scripted-model.js'

/*
 * Skills and commands in each real harness CLI, with the skill `weather-reports` of
 * test/fixtures/skills-commands (its tools `forecast` and `chart`, two extra files) and its command
 * `forecast` (`{{args}}`, run as the agent `planner`), compiled for all ten harnesses: so the skill is
 * in both `.claude/skills/` and `.agents/skills/`, and every CLI that reads both must show it once.
 *   (a) the CLI lists the skill once, and the command, offline, with its own list command or loader;
 *   (b) with the scripted model, the model takes the skill up (its skill tool, or reading SKILL.md),
 *       gets the instructions, runs the documented command through the CLI's shell tool (from the
 *       skill's folder, as the docs say for a run outside the project folder) and gets the tool's output;
 *   (c) where a headless run starts a command, the request holds the prompt with the argument filled in.
 * What each CLI did is in docs/skills-commands.md.
 *   npm run build && npx vitest run --config vitest.harness.config.ts test/harness/skills-commands.test.ts
 */

const SKILL = 'weather-reports'
const COMMAND = 'forecast'
const CITY = 'Lisbon'
const EXPANDED = `Get the forecast for ${CITY} and summarise it.`
/** The command's text as opencode, Kilo, pi and oh-my-pi load it (their placeholder). */
const TEMPLATE = 'Get the forecast for $ARGUMENTS and summarise it.'
/** A line of the skill's instructions (test/fixtures/skills-commands/agents/skills/reports.md). */
const INSTRUCTION = 'Write a weather report for each city the user names'
const FIXTURE = join(repoRoot, 'test/fixtures/skills-commands')

let project: CompiledProject
const cleanup: string[] = []

/** The fixture copied into a temp git repository and compiled with the real pipeline (`registry` of its registries.ts). */
async function fixtureProject(registry: string, harnesses: Harness[]): Promise<CompiledProject> {
  const dir = await copyProject(FIXTURE, 'oac-skills-')
  cleanup.push(dir)
  await promisify(execFile)('git', ['init', '-q', dir])
  const { plan, diagnostics } = await compile({ root: dir, registry: `agents/registries.ts:${registry}`, harnesses })
  return { dir, plan, diagnostics }
}

beforeAll(async () => {
  project = await fixtureProject('valid', [...HARNESSES])
  expect(project.plan.skills?.map((skill) => skill.name)).toEqual([SKILL])
  expect(project.plan.commands?.map((command) => command.name)).toEqual([COMMAND])
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

async function home(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const isolated = await isolatedHome()
  cleanup.push(isolated.home)
  return isolated
}

/** What a CLI lists: the names of skills and commands it shows (a name shown twice is there twice). */
interface Listed {
  skills: string[]
  commands: string[]
}

/** How many times `name` is in `list`. */
const count = (list: readonly string[], name: string) => list.filter((item) => item === name).length

/** The shell command that runs the forecast the way SKILL.md documents it, from the skill's folder (absolute) or the project folder. */
const forecastCommand = (skillFolder?: string) => `node ${skillFolder ? `${skillFolder}/` : ''}scripts/forecast.mjs --city ${CITY}`

/** The absolute folder of our skill named in a text (a tool result, a skills list), if any. */
function skillFolderIn(text: string): string | undefined {
  return /(\/[^\s"'<>`\\]*\/(?:\.agents|\.claude)\/skills\/weather-reports)(?=[/\s"<\\]|$)/.exec(text)?.[1]
}

/** The skill's folder from Codex's skills list: its root's alias (`r1/weather-reports/SKILL.md`) and the roots table (`- \`r1\` = \`/abs\``). */
function codexSkillFolder(text: string): string | undefined {
  const alias = new RegExp(`- ${SKILL}: [^\\n]*?\\(file: (r\\d+)/${SKILL}/SKILL\\.md\\)`).exec(text)?.[1]
  const root = alias && new RegExp(`\`${alias}\` = \`([^\`]+)\``).exec(text)?.[1]
  return root ? `${root}/${SKILL}` : undefined
}

/** One CLI's proofs: its list, how its model takes the skill up and runs a shell command, and how a headless run starts a command. */
interface Proof {
  list(context: RunContext): Promise<Listed>
  /** The model's turns that take the skill up; the next request carries the instructions back. */
  activate(context: RunContext): Turn
  /** A call of its shell tool. */
  shell(command: string): ToolCall
  /** Where the instructions come back: the activation's tool result, or (Codex, given `$skill` or reading) any text of the next request. */
  instructionsIn: 'result' | 'request'
  /**
   * Where the model learns the skill's absolute folder, to run the skill's copy of a script from any
   * folder: the request's text (the instructions, or the skills list of the system prompt), Codex's
   * skill roots table, or nowhere (the model runs the script from the project folder).
   */
  folder: 'request' | 'codex-roots' | 'none'
  /**
   * How a headless run starts the command, and the conversation whose first request holds the prompt
   * (`expanded`, where the CLI fills no placeholder: what it sends in place of the prompt filled in);
   * or why a headless run cannot.
   */
  command: { prompt: string; args?: string[]; conversation: string; expanded?: string } | { unsupported: string }
  /** Why its list shows no commands, where it has none. */
  noCommandList?: string
  /** The command's output in its shell tool's result, where the result wraps it. */
  shellOutput?: (result: string) => string
  /** Arguments of the skill conversation's run beyond the driver's. */
  args?: string[]
}

/* ---------------------------------------------------------------- list commands and loaders */

/** Claude Code's stream-json init event: the skills and slash commands it loaded. */
async function claudeInit(context: RunContext): Promise<Listed> {
  const model = await startScriptedModel({ scripts: { main: [{ text: 'ok' }] }, conversationOf: conversationOf(context.plan), maxRequests: 10 })
  try {
    const run = await DRIVERS.claude.run(model, context)
    const init = JSON.parse(run.stdout.split('\n').find((line) => line.includes('"subtype":"init"'))!) as { skills: string[]; slash_commands: string[] }
    return { skills: init.skills, commands: init.slash_commands.filter((name) => !init.skills.includes(name)) }
  } finally {
    await model.close()
  }
}

/** Qwen Code's stream-json init event: its slash commands hold its skills and its commands alike. */
async function qwenInit(context: RunContext): Promise<Listed> {
  const model = await startScriptedModel({ scripts: { main: [{ text: 'ok' }] }, conversationOf: conversationOf(context.plan), maxRequests: 10 })
  try {
    const run = await DRIVERS.qwen.run(model, { ...context, args: ['--output-format', 'stream-json'] })
    const init = JSON.parse(run.stdout.split('\n').find((line) => line.includes('"subtype":"init"'))!) as { slash_commands: string[] }
    return { skills: init.slash_commands, commands: init.slash_commands }
  } finally {
    await model.close()
  }
}

/** `codex debug prompt-input`: the model's first input, whose skills list names each skill with its SKILL.md. */
async function codexList({ project: dir, env }: RunContext): Promise<Listed> {
  await mkdir(env.CODEX_HOME!, { recursive: true })
  await writeFile(join(env.CODEX_HOME!, 'config.toml'), stringifyToml({ projects: { [dir]: { trust_level: 'trusted' } } }))
  const codex = join(await installed('codex'), 'node_modules/.bin/codex')
  const run = await offlineRun(codex, ['debug', 'prompt-input', 'Go.'], { cwd: dir, env })
  expect(run.code, run.stderr).toBe(0)
  const names = [...run.stdout.matchAll(/- ([a-z0-9-]+): [^\n]*?\(file: [^)\n]*\)/g)].map((match) => match[1]!)
  return { skills: names, commands: names }
}

async function installed(id: Harness): Promise<string> {
  const { cli } = harness(id).proof
  return installHarnessPackage(cli.package, cli.version)
}

async function geminiList({ project: dir, home: homeDir, env }: RunContext): Promise<Listed> {
  const gemini = join(await installed('gemini'), 'node_modules/.bin/gemini')
  const run = await offlineRun(gemini, ['skills', 'list', '--all'], { cwd: dir, env: { ...env, GEMINI_CLI_HOME: homeDir, GEMINI_CLI_TRUST_WORKSPACE: 'true' } })
  expect(run.code, run.stderr).toBe(0)
  return { skills: [...run.stdout.matchAll(/^([a-z0-9-]+) \[Enabled\]/gm)].map((match) => match[1]!), commands: [] }
}

async function copilotList({ project: dir, home: homeDir, env }: RunContext): Promise<Listed> {
  const copilotHome = join(homeDir, '.copilot')
  await mkdir(copilotHome, { recursive: true })
  await writeFile(join(copilotHome, 'config.json'), JSON.stringify({ trusted_folders: [dir] }))
  const copilot = join(await installed('copilot'), 'node_modules/.bin/copilot')
  const run = await offlineRun(copilot, ['skill', 'list'], { cwd: dir, env: { ...env, COPILOT_HOME: copilotHome, COPILOT_OFFLINE: 'true' } })
  expect(run.code, run.stderr).toBe(0)
  const project = run.stdout.slice(run.stdout.indexOf('Project skills:'), run.stdout.indexOf('Builtin skills:'))
  const names = [...project.matchAll(/^ {2}([a-z0-9-]+) - /gm)].map((match) => match[1]!)
  // The Copilot CLI loads `.claude/commands/<name>.md` as a skill of that name.
  return { skills: names, commands: names }
}

/** `opencode debug skill` and `debug config` (Kilo's the same), with the plugin preinstalled as the drivers do. */
function opencodeFamilyList(id: 'opencode' | 'kilo'): (context: RunContext) => Promise<Listed> {
  const family = id === 'opencode' ? { bin: 'opencode', plugin: '@opencode-ai/plugin', version: harness('opencode').proof.cli.version, folder: '.opencode', prefix: 'OPENCODE' } : { bin: 'kilo', plugin: '@kilocode/plugin', version: KILO_PLUGIN, folder: '.kilo', prefix: 'KILO' }
  return async ({ project: dir, env }) => {
    const template = await pluginTemplate(family.plugin, family.version)
    await preinstallPlugin(template, join(env.XDG_CONFIG_HOME!, family.bin))
    await preinstallPlugin(template, join(dir, family.folder))
    const extra = id === 'opencode' ? [`@opencode-ai/plugin@${family.version}`] : []
    const bin = join(await installHarnessPackage(harness(id).proof.cli.package, harness(id).proof.cli.version, extra), 'node_modules/.bin', family.bin)
    const runEnv = { ...env, [`${family.prefix}_DISABLE_AUTOUPDATE`]: '1', [`${family.prefix}_DISABLE_MODELS_FETCH`]: '1', KILO_TELEMETRY_LEVEL: 'off' }
    const skills = await offlineRun(bin, ['debug', 'skill'], { cwd: dir, env: runEnv })
    expect(skills.code, skills.stderr).toBe(0)
    const config = await offlineRun(bin, ['debug', 'config'], { cwd: dir, env: runEnv })
    expect(config.code, config.stderr).toBe(0)
    const commands = (JSON.parse(config.stdout.slice(config.stdout.indexOf('{'))) as { command?: Record<string, { template: string }> }).command ?? {}
    expect(commands[COMMAND]?.template).toBe(TEMPLATE)
    return { skills: (JSON.parse(skills.stdout.slice(skills.stdout.indexOf('['))) as Array<{ name: string }>).map((skill) => skill.name), commands: Object.keys(commands) }
  }
}

/** pi's SDK loads the project as the CLI does: its skills and its prompt templates. */
const PI_LIST = `
import { createAgentSession, SessionManager } from ${JSON.stringify(join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/index.js'))}
const { session } = await createAgentSession({ cwd: process.argv[2], agentDir: process.env.PI_CODING_AGENT_DIR, sessionManager: SessionManager.inMemory() })
const { skills } = session.resourceLoader.getSkills()
console.log(JSON.stringify({ skills: skills.map((s) => ({ name: s.name, path: s.filePath, userOnly: s.disableModelInvocation })), commands: session.promptTemplates.map((t) => ({ name: t.name, content: t.content })) }))
process.exit(0)
`

async function sdkList(script: string, runtime: string[], { project: dir, env }: RunContext, extension: string): Promise<{ skills: Array<{ name: string; path: string }>; commands: Array<{ name: string; content: string }> }> {
  const scriptDir = await mkdtemp(join(tmpdir(), 'oac-skills-sdk-'))
  cleanup.push(scriptDir)
  const file = join(scriptDir, `list.${extension}`)
  await writeFile(file, script)
  const run = await offlineRun(runtime[0]!, [...runtime.slice(1), file, dir], { cwd: dir, env })
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout.slice(run.stdout.indexOf('{"skills"')))
}

async function piList(context: RunContext): Promise<Listed> {
  const listed = await sdkList(PI_LIST, ['node'], context, 'mjs')
  expect(listed.commands.find((command) => command.name === COMMAND)?.content.trim()).toBe(TEMPLATE)
  return { skills: listed.skills.map((skill) => skill.name), commands: listed.commands.map((command) => command.name) }
}

/** omp's SDK under bun: the skills it loaded (by provider priority, one per name) and its slash commands. */
async function ompList(context: RunContext): Promise<Listed> {
  const prefix = await installHarnessPackage('@oh-my-pi/pi-coding-agent', harness('omp').proof.cli.version, ['bun@1.4.5'])
  const root = join(prefix, 'node_modules/@oh-my-pi/pi-coding-agent/src')
  const script = `
const { createAgentSession } = await import(${JSON.stringify(join(root, 'sdk.ts'))})
const { SessionManager } = await import(${JSON.stringify(join(root, 'session/session-manager.ts'))})
const cwd = process.argv[2]
const { session } = await createAgentSession({ cwd, sessionManager: SessionManager.inMemory(cwd) })
console.log(JSON.stringify({ skills: session.skills.map((s) => ({ name: s.name, path: s.filePath ?? s.path, hide: s.hide })), commands: session.slashCommands.map((c) => ({ name: c.name, content: c.content, source: c.source })) }))
process.exit(0)
`
  const listed = await sdkList(script, [join(prefix, 'node_modules/.bin/bun')], context, 'ts')
  // The skill of `.claude/skills` wins over `.agents/skills` (priority 80 over 70); the command of `.omp/commands` over `.claude/commands`.
  expect(listed.skills.filter((skill) => skill.name === SKILL).map((skill) => relative(context.project, skill.path))).toEqual([`.claude/skills/${SKILL}/SKILL.md`])
  expect(listed.commands.find((command) => command.name === COMMAND)?.content.trim()).toBe(TEMPLATE)
  return { skills: listed.skills.map((skill) => skill.name), commands: listed.commands.map((command) => command.name) }
}

/**
 * Cline has no list without a terminal (docs/cline.md): its model's `skills` tool lists the skills by
 * name at the end of the tool's description in the first request (`Available skills: a, b.`).
 */
async function clineSkills(context: RunContext): Promise<Listed> {
  const model = await startScriptedModel({ scripts: { main: [{ text: 'ok' }] }, conversationOf: conversationOf(context.plan), maxRequests: 10 })
  try {
    const run = await DRIVERS.cline.run(model, context)
    expect(run.code, run.stderr).toBe(0)
    const tools = model.conversation('main')[0]!.body.tools as Array<{ function: { name: string; description: string } }>
    const listing = tools.find((tool) => tool.function.name === 'skills')!.function.description
    const names = /Available skills: (.*)\.$/.exec(listing)?.[1]
    expect(names, listing).toBeDefined()
    return { skills: names!.split(', '), commands: [] }
  } finally {
    await model.close()
  }
}

/* ---------------------------------------------------------------- each CLI */

const PROOF: Record<Harness, Proof> = {
  claude: {
    list: claudeInit,
    activate: () => ({ calls: [{ name: 'Skill', input: { skill: SKILL } }] }),
    shell: (command) => ({ name: 'Bash', input: { command, description: 'Run the forecast' } }),
    instructionsIn: 'request',
    folder: 'request',
    // `context: fork` runs it in the `planner` sub-agent.
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'planner' },
    // The user lets the Skill tool run; nothing but the skill's `allowed-tools` lets Bash run the skill's commands.
    args: ['--allowedTools', 'Skill'],
  },
  codex: {
    list: codexList,
    // Codex has no skill tool: its model reads SKILL.md (its path is in the skills list) with its shell.
    activate: () => ({ calls: [{ name: 'exec_command', input: { cmd: `cat .agents/skills/${SKILL}/SKILL.md` } }] }),
    shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
    instructionsIn: 'result',
    folder: 'codex-roots',
    // `$forecast Lisbon`: Codex hands the model the command's skill next to the message.
    command: { prompt: `$${COMMAND} ${CITY}`, conversation: 'main' },
  },
  gemini: {
    list: geminiList,
    activate: () => ({ calls: [{ name: 'activate_skill', input: { name: SKILL } }] }),
    shell: (command) => ({ name: 'run_shell_command', input: { command, description: 'Run the forecast' } }),
    instructionsIn: 'result',
    folder: 'request',
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'main' },
    noCommandList: 'Gemini CLI has no list of commands',
  },
  copilot: {
    list: copilotList,
    activate: () => ({ calls: [{ name: 'skill', input: { skill: SKILL } }] }),
    shell: (command) => ({ name: 'bash', input: { command, description: 'Run the forecast' } }),
    // The tool result says it loaded; the instructions follow as a user message (`<skill-context>`).
    instructionsIn: 'request',
    folder: 'request',
    command: { unsupported: '`copilot -p "/forecast Lisbon"` sends the text as it is: the CLI starts a command (a skill of `.claude/commands`) only in its interactive UI' },
  },
  qwen: {
    list: qwenInit,
    activate: () => ({ calls: [{ name: 'skill', input: { skill: SKILL } }] }),
    shell: (command) => ({ name: 'run_shell_command', input: { command } }),
    instructionsIn: 'result',
    folder: 'request',
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'main' },
  },
  opencode: {
    list: opencodeFamilyList('opencode'),
    activate: () => ({ calls: [{ name: 'skill', input: { name: SKILL } }] }),
    shell: (command) => ({ name: 'bash', input: { command, description: 'Run the forecast' } }),
    instructionsIn: 'result',
    folder: 'request',
    command: {
      prompt: CITY,
      args: ['--command', COMMAND],
      conversation: 'planner',
    },
  },
  kilo: {
    list: opencodeFamilyList('kilo'),
    activate: () => ({ calls: [{ name: 'skill', input: { name: SKILL } }] }),
    shell: (command) => ({ name: 'bash', input: { command, description: 'Run the forecast' } }),
    instructionsIn: 'result',
    folder: 'request',
    command: { prompt: CITY, args: ['--command', COMMAND], conversation: 'planner' },
  },
  pi: {
    list: piList,
    // pi's model reads SKILL.md with its read tool, at the location its skills list gives.
    activate: ({ project: dir }) => ({ calls: [{ name: 'read', input: { path: join(dir, `.agents/skills/${SKILL}/SKILL.md`) } }] }),
    shell: (command) => ({ name: 'bash', input: { command } }),
    instructionsIn: 'result',
    // Its skills list gives SKILL.md's absolute location.
    folder: 'request',
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'main' },
  },
  omp: {
    list: ompList,
    activate: () => ({ calls: [{ name: 'read', input: { path: `skill://${SKILL}`, i: 'Read the skill' } }] }),
    shell: (command) => ({ name: 'bash', input: { command, i: 'Run the forecast' } }),
    instructionsIn: 'result',
    // It names skills by `skill://` URIs, which its read tool takes and a shell does not.
    folder: 'none',
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'main' },
  },
  cline: {
    list: clineSkills,
    activate: () => ({ calls: [{ name: 'skills', input: { skill: SKILL, args: null } }] }),
    shell: (command) => ({ name: 'run_commands', input: { commands: [command] } }),
    // `[{ query, result, success }]`, one entry per command.
    shellOutput: (result) => (JSON.parse(result) as Array<{ result: string }>).map((entry) => entry.result).join(''),
    instructionsIn: 'result',
    // The skill's text comes without its folder, and the skills tool names none: the model runs the script from the project folder.
    folder: 'none',
    // The workflow's text, its `{{args}}` written as words, with the text typed after `/forecast` at its end.
    command: { prompt: `/${COMMAND} ${CITY}`, conversation: 'main', expanded: `Get the forecast for the text at the end of this message and summarise it. ${CITY}` },
    noCommandList: 'Cline shows its workflows only on its settings screen, in a terminal (docs/cline.md)',
  },
}

/**
 * opencode's and Kilo's skill tool lists the skill's files with ripgrep, which they download when it is
 * not on PATH (offline, the call fails): the one Codex ships is put on PATH, as a user's own would be.
 */
async function ripgrepPath(env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const rg = join(await installed('codex'), 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path')
  return { ...env, PATH: `${rg}:${env.PATH}` }
}

/** Runs the CLI once against a scripted model with `scripts`, from a fresh home; every request it saw. */
async function run(id: Harness, scripts: Record<string, Turn[]>, extra: Partial<RunContext> = {}): Promise<{ model: ScriptedModel; result: BoundedRun }> {
  const { home: homeDir, env: homeEnv } = await home()
  const env = id === 'opencode' || id === 'kilo' ? await ripgrepPath(homeEnv) : homeEnv
  const model = await startScriptedModel({ scripts, conversationOf: conversationOf(project.plan), maxRequests: 20 })
  try {
    const result = await DRIVERS[id].run(model, { project: project.dir, plan: project.plan, home: homeDir, env, ...extra })
    expect(result.timedOut, `${id} timed out\n${result.stderr}`).toBe(false)
    return { model, result }
  } finally {
    await model.close()
  }
}

const textOf = (request: Pick<SeenRequest, 'body'>) => JSON.stringify(request.body)

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  const proof = PROOF[id]

  describe(driver.title, () => {
    beforeAll(() => (id === 'qwen' ? installQwen().then(() => driver.install()) : driver.install()))

    it(`lists the skill once (in .agents/skills and .claude/skills both) and the command`, async () => {
      const { home: homeDir, env } = await home()
      const listed = await proof.list({ project: project.dir, plan: project.plan, home: homeDir, env })
      expect(count(listed.skills, SKILL), listed.skills.join(', ')).toBe(1)
      // Codex keeps the command's skill out of its model's list (it comes with `$forecast`).
      if (id === 'codex') expect(count(listed.skills, COMMAND)).toBe(0)
      else if (proof.noCommandList === undefined) expect(count(listed.commands, COMMAND), listed.commands.join(', ')).toBe(1)
    })

    it("activates the skill, gets its instructions, and runs the documented command through the shell tool", async () => {
      const expected = await direct(project.dir, 'forecast', { city: CITY })
      let folder: string | undefined
      const main: Turn[] = [
        proof.activate({ project: project.dir, plan: project.plan, home: '', env: {} }),
        (request) => {
          // Where the model learns the skill's folder, it runs the skill's copy of the script (which works from any folder).
          folder = proof.folder === 'request' ? skillFolderIn(textOf(request)) : proof.folder === 'codex-roots' ? codexSkillFolder(textOf(request)) : undefined
          return { calls: [proof.shell(forecastCommand(folder))] }
        },
        { text: 'done' },
      ]
      const { model, result } = await run(id, { main }, { args: proof.args ?? [] })
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      const requests = model.conversation('main')
      expect(requests, `${result.stdout}\n${result.stderr}`).toHaveLength(main.length)
      const instructions = proof.instructionsIn === 'result' ? requests[1]!.toolResults.map((r) => r.text).join('\n') : textOf(requests[1]!)
      expect(instructions).toContain(INSTRUCTION)
      expect(instructions).toContain('node scripts/forecast.mjs --city <string>')
      if (proof.folder !== 'none') expect(folder, instructions).toBeDefined()
      const output = requests[2]!.toolResults.map((r) => (proof.shellOutput ?? driver.resultText)(r.text)).join('\n')
      expect(output).toContain(expected.stdout.trim())
      expect(output).toContain(`Sunny in ${CITY}.`)
    })

    const command = proof.command
    if ('unsupported' in command) {
      it.skip(`starts the command headless (${command.unsupported})`, () => {})
    } else {
      it('starts the command headless: the request holds the prompt with the argument', async () => {
        const scripts = { main: [{ text: 'done' }, { text: 'done' }], planner: [{ text: 'done' }, { text: 'done' }] }
        const { model, result } = await run(id, scripts, { prompt: command.prompt, args: command.args ?? [] })
        // The first scripted request (a side request, such as a title, may quote the prompt too).
        const holding = model.requests.filter((request) => request.conversation !== undefined).filter((request) => textOf(request).includes(command.expanded ?? EXPANDED) || (id === 'codex' && textOf(request).includes('Get the forecast for the text after')))
        expect(holding.length, `${result.stdout}\n${result.stderr}`).toBeGreaterThan(0)
        expect(holding[0]!.conversation).toBe(command.conversation)
        if (id === 'codex') expect(textOf(holding[0]!)).toContain(`$${COMMAND} ${CITY}`)
      })
    }
  })
}


describe(`${DRIVERS.claude.title}: from a subfolder, and a command's text its placeholders would take`, () => {
  beforeAll(() => DRIVERS.claude.install())

  const SUBFOLDER = 'agents/skills'

  it("started in a subfolder, loads the project's skill and runs the skill's copy of the script", async () => {
    let folder: string | undefined
    const main: Turn[] = [
      PROOF.claude.activate({ project: project.dir, plan: project.plan, home: '', env: {} }),
      (request) => {
        folder = skillFolderIn(textOf(request))
        return { calls: [PROOF.claude.shell(forecastCommand(folder))] }
      },
      { text: 'done' },
    ]
    const { model, result } = await run('claude', { main }, { project: join(project.dir, SUBFOLDER), args: PROOF.claude.args ?? [] })
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
    const requests = model.conversation('main')
    expect(textOf(requests[0]!)).toContain(`Primary working directory: ${join(project.dir, SUBFOLDER)}`)
    expect(folder).toBe(join(project.dir, `.claude/skills/${SKILL}`))
    // SKILL.md escapes the instructions' `$1` for Claude Code, which reads it back as written.
    expect(textOf(requests[1]!)).toContain('A chart costs $1 per call')
    expect(requests[2]!.toolResults[0]!.text).toContain(`Sunny in ${CITY}.`)
  })

  it('reads `$1`, `$ARGUMENTS[0]` and `$ARGUMENTS` of the text as written, and {{args}} as the argument', async () => {
    const { dir, plan } = await fixtureProject('claudeEscapes', ['claude'])
    const { home: homeDir, env } = await home()
    const model = await startScriptedModel({ scripts: { main: [{ text: 'done' }] }, conversationOf: conversationOf(plan), maxRequests: 10 })
    try {
      const result = await DRIVERS.claude.run(model, { project: dir, plan, home: homeDir, env, prompt: `/priced ${CITY}` })
      expect(result.code, result.stderr).toBe(0)
    } finally {
      await model.close()
    }
    expect(textOf(model.conversation('main')[0]!)).toContain(`Quote $1 and $ARGUMENTS[0] for ${CITY}, as $ARGUMENTS says.`)
  })
})

/** What the user types to start `git:commit` in each CLI whose files namespace it (compile warns with it where it is not `/git:commit`). */
const NAMESPACED: Partial<Record<Harness, { prompt: string; args?: string[] }>> = {
  claude: { prompt: `/git:commit ${CITY}` },
  gemini: { prompt: `/git:commit ${CITY}` },
  qwen: { prompt: `/git:commit ${CITY}` },
  opencode: { prompt: CITY, args: ['--command', 'git/commit'] },
  pi: { prompt: `/git-commit ${CITY}` },
}

describe('a namespaced command (git:commit), started as each CLI names it', () => {
  for (const [id, start] of Object.entries(NAMESPACED) as Array<[Harness, { prompt: string; args?: string[] }]>) {
    it(`${DRIVERS[id].title}: ${start.args ? `${start.args.join(' ')} ` : ''}${start.prompt}`, async () => {
      await (id === 'qwen' ? installQwen().then(() => DRIVERS[id].install()) : DRIVERS[id].install())
      const { dir, plan } = await fixtureProject('namespaced', [id])
      const { home: homeDir, env: homeEnv } = await home()
      const env = id === 'opencode' ? await ripgrepPath(homeEnv) : homeEnv
      const model = await startScriptedModel({ scripts: { main: [{ text: 'done' }, { text: 'done' }] }, conversationOf: conversationOf(plan), maxRequests: 10 })
      try {
        const result = await DRIVERS[id].run(model, { project: dir, plan, home: homeDir, env, prompt: start.prompt, args: start.args ?? [] })
        expect(result.timedOut, result.stderr).toBe(false)
        const holding = model.requests.filter((request) => request.conversation !== undefined && textOf(request).includes(`Write a commit message for ${CITY}.`))
        expect(holding.length, `${result.stdout}\n${result.stderr}`).toBeGreaterThan(0)
      } finally {
        await model.close()
      }
    })
  }
})
