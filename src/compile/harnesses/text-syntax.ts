import type { CommandFile, TextSyntax } from './types.js'

/*
 * What each harness family makes of the text of a command file or SKILL.md, read from the pinned
 * CLIs' own code (docs/skills-commands.md names the function in each). Shared by the descriptions
 * of a family (Claude Code and the Copilot CLI read one file; opencode and Kilo, Gemini CLI and Qwen
 * Code share their code).
 */

// Claude Code 2.1.332 fills `$ARGUMENTS`, `$ARGUMENTS[n]` and `$n` in a command or skill it starts
// with arguments, keeps `\$` before them as a plain `$`, and runs the shell command of `!`cmd`` (at a
// line's start or after a space) and of a "```!" block before the model reads the text.
const CLAUDE_ARGUMENT = /\$(?=ARGUMENTS|\d)/g

export const CLAUDE_SYNTAX: TextSyntax = {
  special: [
    { pattern: /\\\$(?:ARGUMENTS|\d)/, meaning: 'is read as an escaped placeholder, its backslash dropped' },
    { pattern: /(?:^|(?<=\s))!`[^`]+`/m, meaning: 'is run as a shell command before the model reads the text' },
    { pattern: /```!/, meaning: 'is run as a block of shell commands before the model reads the text' },
    // Its own markers while it fills placeholders.
    { pattern: /[\uFFFE\uFFFF]/, meaning: 'is replaced by U+FFFD' },
  ],
  // A backslash keeps `$ARGUMENTS` and `$1` as written (what `special` reports is left).
  escape: (literal) => literal.replace(CLAUDE_ARGUMENT, '\\$'),
}

/** `.claude/commands/<name>.md`: Claude Code's command, which the Copilot CLI loads too (as a skill of that name). */
export const CLAUDE_COMMAND: CommandFile = {
  reader: 'Claude Code',
  path: (command) => `.claude/commands/${command}.md`,
  // 2.1.332 joins a subfolder and the file's name with `:` (`.claude/commands/git/commit.md` is `/git:commit`) and takes the file's name as it is.
  names: { prefix: '/', folders: ':', character: /[a-z0-9_.-]/ },
  format: 'markdown',
  args: () => '$ARGUMENTS',
  // `context: fork` runs the command in a sub-agent, of the type `agent` names.
  fields: { argumentHint: 'argument-hint', model: 'model', agent: (agent) => ({ context: 'fork', agent }) },
  syntax: CLAUDE_SYNTAX,
  harness: 'claude',
  // 2.1.332 counts from 0: `$0` (`$ARGUMENTS[0]`) is the first word, `$1` the second (`_vt` in its binary).
  positional: (n) => `$${n - 1}`,
  // Run only at a line's start or after white space.
  shell: (command) => `!\`${command}\``,
}

/** opencode 1.18 (and Kilo): `$ARGUMENTS` and `$n` filled, `!`cmd`` run; no escape for either. */
export const OPENCODE_SYNTAX: TextSyntax = {
  special: [
    { pattern: /\$(?:ARGUMENTS|\d)/, meaning: 'is filled in as an argument placeholder' },
    { pattern: /!`[^`]+`/, meaning: 'is run as a shell command before the model reads the text' },
  ],
}

/** Gemini CLI 0.61 and Qwen Code 0.24: `{{args}}` filled, `!{...}` run, `@{...}` inlined as a file; no escape. */
export const GEMINI_SYNTAX: TextSyntax = {
  special: [
    { pattern: /\{\{args\}\}/, meaning: 'is filled in as the argument placeholder' },
    { pattern: /!\{/, meaning: 'is run as a shell command (or the command fails to load when its braces do not balance)' },
    { pattern: /@\{/, meaning: 'is replaced by a file\'s text (or the command fails to load when its braces do not balance)' },
  ],
}

/** pi 0.73: `$n`, `$@`, `${@:n}` and `$ARGUMENTS` filled; no escape. */
export const PI_SYNTAX: TextSyntax = {
  special: [{ pattern: /\$(?:ARGUMENTS|@|\{@:|\d)/, meaning: 'is filled in as an argument placeholder' }],
}

/** oh-my-pi 18.2: pi's placeholders (`$@[n]` too), then the text rendered as a Handlebars-like template. */
export const OMP_SYNTAX: TextSyntax = {
  special: [
    { pattern: /\$(?:ARGUMENTS|@|\d)/, meaning: 'is filled in as an argument placeholder' },
    { pattern: /\{\{/, meaning: 'is rendered as a template tag' },
  ],
}

/** VS Code prompt files: `${...}` variables (`${input:name}`, `${file}`, `${selection}`...) filled. */
export const VSCODE_SYNTAX: TextSyntax = {
  special: [{ pattern: /\$\{[^}]*\}/, meaning: 'is filled in as a variable' }],
}

/**
 * An instruction file's `@path` import, as Gemini CLI 0.61 finds it (`findImports`: an `@` at the start
 * or after white space, then `.`, `/` or a letter) and inlines the named file's text. Claude Code, Qwen
 * Code and the Copilot CLI follow such lines too (docs/instructions.md); none has an escape.
 */
export const IMPORT_SYNTAX: TextSyntax = {
  special: [{ pattern: /(?:^|(?<=[ \t\r\n]))@[./A-Za-z]/, meaning: 'is replaced by the text of the file it names, where that file exists' }],
}
