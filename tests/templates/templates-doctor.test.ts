import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/document/contract.js';
import { loadTemplate } from '../../src/templates/kind-template.js';
import { cliEnv, gitRepo, runCli } from '../helpers/cli.js';

describe('every kind template renders into a memory doctor is happy with', () => {
  it('save --template with every section, for all eight kinds: doctor --strict finds nothing', async () => {
    const repo = gitRepo();
    const env = cliEnv();
    for (const kind of KINDS) {
      const sections = loadTemplate(kind).sections.flatMap((s, i) => [
        '--section',
        `${s.name}=${kind} ${s.name.toLowerCase()}: point ${i + 1}, with \`code\` in a sentence.`,
      ]);
      const r = await runCli(['save', '--scope', 'team', '--kind', kind, '--title', `A ${kind} from its template`, '--tag', kind, '--template', ...sections], {
        cwd: repo,
        env,
      });
      expect(r.code, `${kind}: ${r.stderr}`).toBe(0);
    }
    const doctor = await runCli(['doctor', '--strict', '--no-index-check', '--json'], { cwd: repo, env });
    const report = JSON.parse(doctor.stdout);
    expect(report.problems).toEqual([]);
    expect(report.counts).toMatchObject({ errors: 0, warnings: 0, memories: KINDS.length });
    expect(doctor.code).toBe(0);
  });
});
