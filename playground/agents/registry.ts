import { defineAgent, defineCommand, defineRegistry, defineSkill } from 'unplugin-oac'
import { guard } from './hooks/guard.ts'
import { convertUnits } from './tools/convert-units.ts'
import { deleteReport } from './tools/delete-report.ts'
import { forecast } from './tools/forecast.ts'
import { forecastChart } from './tools/forecast-chart.ts'
import { releaseNotes } from './tools/release-notes.ts'
import { sampleValue } from './tools/sample-value.ts'
import { searchIssues } from './tools/search-issues.ts'

const planner = defineAgent({
  name: 'planner',
  description: 'Plans field work around the weather. Use for scheduling outdoor tasks.',
  prompt: { file: './planner.md' },
  tools: [forecast, forecastChart, convertUnits],
  model: 'smart',
  toolFormat: 'both',
})

const triager = defineAgent({
  name: 'triager',
  description: 'Triages issues and drafts release notes. Use when sorting bugs or preparing a release.',
  prompt: 'You triage issues: find duplicates, label them, and draft release notes for what was fixed. Delete a report only when asked to.',
  tools: [searchIssues, releaseNotes, deleteReport],
  model: 'fast',
  toolFormat: 'json',
  toolFormatOverrides: { release_notes: 'bash' },
  harness: { opencode: { temperature: 0.2 } },
})

const reviewer = defineAgent({
  name: 'reviewer',
  description: 'Reviews changes against open issues. Use before merging.',
  prompt: 'You review code changes. Look up related open issues before you comment.',
  tools: [searchIssues],
  mode: 'subagent',
  toolFormat: 'bash',
  builtinTools: { claude: ['Read', 'Grep', 'Glob'] },
})

// A skill every harness loads (SKILL.md in .agents/skills/ and .claude/skills/), documenting its tools as commands.
const weatherReports = defineSkill({
  name: 'weather-reports',
  description: 'Writes short weather reports for cities. Use when asked for a weather report or an outlook for a city.',
  instructions: { file: './skills/weather-reports.md' },
  tools: [forecast, forecastChart],
  files: { 'templates/report.md': { file: './skills/report-template.md' } },
})

// `/forecast Lisbon` in each harness's own command format; {{args}} is what the user typed after it.
const forecastCommand = defineCommand({
  name: 'forecast',
  description: 'Forecast for a city, in two lines',
  prompt: 'Get the forecast for {{args}} and summarise it in two lines.',
  argumentHint: '<city>',
})

export const registry = defineRegistry({
  agents: [planner, triager, reviewer],
  // Served to the main agent of every harness (no agent of ours documents it): one value of each kind a tool returns.
  tools: [sampleValue],
  hooks: [guard],
  skills: [weatherReports],
  commands: [forecastCommand],
  configs: {
    prod: {
      models: {
        smart: { claude: 'opus', codex: 'gpt-5.1-codex', opencode: 'anthropic/claude-opus-4-1', pi: 'claude-opus-4-1', omp: 'claude-opus-4-1' },
        fast: { claude: 'haiku', codex: 'gpt-5.1-codex-mini', opencode: 'anthropic/claude-haiku-4-5', pi: 'claude-haiku-4-5', omp: 'claude-haiku-4-5' },
      },
      env: ['FORECAST_UNITS'],
      // Read-only tools run without asking; destructive ones always ask, in every harness that has a setting for it.
      approval: { allow: [{ effect: 'readOnly' }], ask: [{ effect: 'destructive' }] },
    },
    dev: {
      harnesses: ['claude', 'opencode'],
      models: {
        smart: { claude: 'sonnet', opencode: 'anthropic/claude-sonnet-4-5' },
        fast: { claude: 'haiku', opencode: 'anthropic/claude-haiku-4-5' },
      },
    },
  },
})
