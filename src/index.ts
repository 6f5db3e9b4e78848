/**
 * The public library API of vault: the same operations as the CLI, as typed functions.
 * Pinned by tests/unit/public-api.test.ts: add to it deliberately.
 */
export { VaultError, EXIT, isVaultError, type VaultErrorCode } from './errors.js';
export {
  SCHEMA_VERSION,
  FIELD_ORDER,
  KINDS,
  SCOPES,
  STATUSES,
  LIMITS,
  type Memory,
  type Kind,
  type Scope,
  type Status,
  type Frontmatter,
} from './document/contract.js';
export { parseMemory, type ParsedMemory, type NonCanonicalReason } from './document/parse.js';
export { serializeMemory } from './document/serialize.js';
export { schemaAccepts, checkFrontmatter } from './schema/check-frontmatter.js';
export { scanDocumentForSecrets, findSecretShapes, redactSecretShapes, type SecretFinding } from './secrets/scan-secrets.js';
export { nodeRuntime, type Runtime } from './io/runtime.js';
export { resolveRoots, type VaultRoots, type RootOptions } from './store/roots.js';
export { generateMemoryId } from './store/ids.js';
export { scanVault, walkVault, type ScanResult, type ScanEntry, type InvalidFile, type ScanOptions } from './scanner/scan-vault.js';
export { saveMemory, buildMemory, type SaveInput, type SaveResult } from './vault/save-memory.js';
export { readMemory, linkedIds, backlinksOf, type ReadResult, type Backlink } from './vault/read-memory.js';
export { initVault, type InitResult } from './vault/init-vault.js';
export { runDoctor, type DoctorOptions } from './doctor/run-doctor.js';
export type { DoctorReport, Problem, Severity, ProblemCode, DoctorCounts } from './doctor/problem.js';
export { formatText as formatDoctorText, formatGithub as formatDoctorGithub, summaryLine as doctorSummaryLine } from './doctor/report-format.js';
export { fmtMemories, formatMemoryFile, type FmtResult, type FmtFileResult, type FmtOptions, type FmtStatus } from './vault/fmt-memory.js';
export { shareMemory, type ShareResult } from './vault/share-memory.js';
export {
  searchMemories,
  type SearchOptions,
  type SearchResponse,
  type SearchHit,
  type SearchDiagnostics,
  type SearchInvalidFile,
} from './search/search-memories.js';
export { indexStatus, refreshIndex, rebuildIndex, type IndexStatus, type ScopeIndexStatus, type IndexMaintenanceOptions } from './search/index-status.js';
export { findSimilarMemories, type SimilarMemory } from './search/similar-memories.js';
export { tokenize as tokenizeText, foldText } from './search/tokenizer.js';
export {
  readTranscript,
  checkTranscriptPath,
  DEFAULT_TRANSCRIPT_MAX_BYTES,
  type ReadTranscriptOptions,
  type TranscriptPathProblem,
} from './sessions/read-transcript.js';
export { HARNESSES, type Harness, type TranscriptSummary } from './sessions/transcript-summary.js';
export {
  renderSnapshot,
  parseSnapshot,
  mergeSnapshots,
  snapshotFromSummary,
  SNAPSHOT_MARKER,
  SNAPSHOT_END,
  type SessionSnapshot,
} from './sessions/snapshot.js';
export {
  resolveSessionsDir,
  listSnapshots,
  loadSnapshot,
  updateSnapshot,
  SNAPSHOT_FILE,
  type SnapshotFile,
  type UpdateResult,
} from './sessions/snapshot-store.js';
export { discoverSnapshot, type Discovery } from './sessions/snapshot-index.js';
export { recordSession, type RecordInput, type RecordOutcome, type RecordEvent } from './sessions/session-events.js';
export { prepareSessionStart, type StartInput, type StartOutcome } from './sessions/session-start.js';
export { buildInjectionText, HISTORICAL_MARKER, type MemoryPointer } from './sessions/injection-text.js';
export { deriveShortId, sanitizeShortId } from './sessions/session-ids.js';
export { handoffBodyFromSnapshot } from './sessions/handoff-body.js';
