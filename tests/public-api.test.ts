/**
 * The public library surface (src/index.ts) is pinned: adding or removing an export is a
 * deliberate change to this list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.js';

/** Values exported at run time. */
const VALUES = [
  'DEFAULT_TRANSCRIPT_MAX_BYTES',
  'EXIT',
  'FIELD_ORDER',
  'HARNESSES',
  'HISTORICAL_MARKER',
  'KINDS',
  'LIMITS',
  'SCHEMA_VERSION',
  'SCOPES',
  'SNAPSHOT_END',
  'SNAPSHOT_FILE',
  'SNAPSHOT_MARKER',
  'STATUSES',
  'VaultError',
  'backlinksOf',
  'buildInjectionText',
  'buildMemory',
  'checkFrontmatter',
  'checkTranscriptPath',
  'deriveShortId',
  'discoverSnapshot',
  'doctorSummaryLine',
  'findSecretShapes',
  'findSimilarMemories',
  'fmtMemories',
  'foldText',
  'formatDoctorGithub',
  'formatDoctorText',
  'formatMemoryFile',
  'generateMemoryId',
  'handoffBodyFromSnapshot',
  'indexStatus',
  'initVault',
  'isVaultError',
  'linkedIds',
  'listSnapshots',
  'loadSnapshot',
  'mergeSnapshots',
  'nodeRuntime',
  'parseMemory',
  'parseSnapshot',
  'prepareSessionStart',
  'readMemory',
  'readTranscript',
  'rebuildIndex',
  'recordSession',
  'redactSecretShapes',
  'refreshIndex',
  'renderSnapshot',
  'resolveRoots',
  'resolveSessionsDir',
  'runDoctor',
  'sanitizeShortId',
  'saveMemory',
  'scanDocumentForSecrets',
  'scanVault',
  'schemaAccepts',
  'searchMemories',
  'serializeMemory',
  'shareMemory',
  'snapshotFromSummary',
  'tokenizeText',
  'updateSnapshot',
  'walkVault',
];

/** Type-only exports (erased at run time). */
const TYPES = [
  'Backlink',
  'Diagnostic',
  'DiagnosticCode',
  'Discovery',
  'DoctorCounts',
  'DoctorOptions',
  'DoctorReport',
  'FmtFileResult',
  'FmtOptions',
  'FmtResult',
  'FmtStatus',
  'FileDiagnostic',
  'Frontmatter',
  'Harness',
  'IndexMaintenanceOptions',
  'IndexStatus',
  'InitResult',
  'Kind',
  'Memory',
  'MemoryPointer',
  'NonCanonicalReason',
  'ParsedMemory',
  'ReadResult',
  'ReadTranscriptOptions',
  'RecordEvent',
  'RecordInput',
  'RecordOutcome',
  'RootOptions',
  'Runtime',
  'SaveInput',
  'SaveResult',
  'ScanEntry',
  'ScanOptions',
  'ScanResult',
  'Scope',
  'ScopeIndexStatus',
  'SearchDiagnostics',
  'SearchHit',
  'SearchOptions',
  'SearchResponse',
  'SecretFinding',
  'SessionSnapshot',
  'Severity',
  'ShareResult',
  'SimilarMemory',
  'SnapshotFile',
  'StartInput',
  'StartOutcome',
  'Status',
  'TranscriptPathProblem',
  'TranscriptSummary',
  'UpdateResult',
  'VaultErrorCode',
  'VaultRoots',
];

/** Names in `export { a, type B, c as d } from '…'` and `export type { … }` statements. */
function declaredExports(source: string): { values: string[]; types: string[] } {
  const values: string[] = [];
  const types: string[] = [];
  for (const m of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    const allTypes = Boolean(m[1]);
    for (const raw of m[2]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const isType = allTypes || raw.startsWith('type ');
      const name = raw
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      (isType ? types : values).push(name);
    }
  }
  return { values: values.sort(), types: types.sort() };
}

describe('public API', () => {
  it('exports exactly the pinned values', async () => {
    const mod = await import('../src/index.js');
    expect(Object.keys(mod).sort()).toEqual([...VALUES].sort());
  });

  it('declares exactly the pinned names (values and types) in src/index.ts', () => {
    const source = readFileSync(join(REPO, 'src/index.ts'), 'utf8');
    // every export is an explicit list, so that this test sees every name
    expect(source).not.toMatch(/^export\s+(\*|const|let|function|class|default|async)/m);
    const { values, types } = declaredExports(source);
    expect(values).toEqual([...VALUES].sort());
    expect(types).toEqual([...TYPES].sort());
  });
});
