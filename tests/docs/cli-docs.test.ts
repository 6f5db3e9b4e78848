import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { CLI_DOCS_PATH, renderCliDocs } from '../../scripts/gen-cli-docs.mjs';
import { buildParser } from '../../src/cli/main.js';
import { commandModules } from '../../src/cli/commands/registry.js';

describe('docs/cli.md', () => {
  it('is generated from the current yargs definitions', async () => {
    const expected: string = await renderCliDocs(buildParser);
    const actual = readFileSync(CLI_DOCS_PATH, 'utf8');
    if (actual !== expected) {
      expect.fail('docs/cli.md is out of date with the yargs definitions in src/cli/commands/: run node scripts/gen-cli-docs.mjs');
    }
  });

  it('has a section for every registered command', async () => {
    const text: string = await renderCliDocs(buildParser);
    for (const make of commandModules) {
      const name = make({} as never).command.split(' ')[0]!;
      expect(text, `vault ${name}`).toContain(`\n## vault ${name}\n`);
    }
  });
});
