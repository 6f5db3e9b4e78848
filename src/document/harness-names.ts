/**
 * Harness names and their aliases: one place that says which spellings name the same harness,
 * so `target_harnesses: [claude]` reaches Claude Code as `claude-code` does, in search filters,
 * the MCP identity, session start and prompt recall alike.
 *
 * | harness | aliases |
 * |---|---|
 * | `claude-code` | `claude`, `claudecode`, `claude_code` |
 * | `codex` | `codex-cli`, `openai-codex` |
 * | `copilot-cli` | `copilot`, `github-copilot`, `gh-copilot` |
 * | `gemini-cli` | `gemini` |
 * | `cursor` | `cursor-agent`, `cursor-cli` |
 *
 * Any other slug is its own harness. `all` is the "every harness" target, never an alias.
 */

/** Alias (lowercase) → the canonical harness name. */
export const HARNESS_ALIASES: Readonly<Record<string, string>> = {
  claude: 'claude-code',
  claudecode: 'claude-code',
  claude_code: 'claude-code',
  'codex-cli': 'codex',
  'openai-codex': 'codex',
  copilot: 'copilot-cli',
  'github-copilot': 'copilot-cli',
  'gh-copilot': 'copilot-cli',
  gemini: 'gemini-cli',
  'cursor-agent': 'cursor',
  'cursor-cli': 'cursor',
};

/**
 * The canonical name of a harness: trimmed, lowercased, an alias replaced by its harness.
 *
 * @param name a harness name as written in `target_harnesses`, `--harness` or ECC_MEMORY_HARNESS
 * @returns e.g. `claude-code` for `Claude`; an unknown slug unchanged (lowercased)
 */
export function canonicalHarness(name: string): string {
  const key = name.trim().toLowerCase();
  return HARNESS_ALIASES[key] ?? key;
}

/**
 * True when a memory's `target_harnesses` reach `harness`: `all`, or a name that is the same
 * harness once aliases are resolved.
 */
export function targetsHarness(targets: readonly string[], harness: string): boolean {
  const want = canonicalHarness(harness);
  return targets.some((t) => t === 'all' || canonicalHarness(t) === want);
}
