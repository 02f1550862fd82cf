/**
 * The harnesses unplugin-oac compiles to, in their canonical order. Each is described in
 * `src/compile/harnesses/<id>.ts` and emitted by `src/emit/<id>.ts`.
 */
const HARNESS_IDS = ['opencode', 'claude', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo', 'cline'] as const
export type Harness = (typeof HARNESS_IDS)[number]
export const HARNESSES: readonly Harness[] = HARNESS_IDS
