/**
 * The public library API of vault: the same operations as the CLI, as typed functions.
 * Pinned by tests/public-api.test.ts: add to it deliberately.
 */
export { VaultError, EXIT, isVaultError, type VaultErrorCode } from './errors.js';
export type { Diagnostic, DiagnosticCode, Severity } from './diagnostics.js';
export {
  SCHEMA_VERSION,
  FIELD_ORDER,
  KINDS,
  SCOPES,
  STATUSES,
  LIMITS,
  linkedIds,
  type Memory,
  type Kind,
  type Scope,
  type Status,
  type Frontmatter,
} from './document/contract.js';
export { parseMemory, type ParsedMemory, type NonCanonicalReason } from './document/parse.js';
export { serializeMemory } from './document/serialize.js';
export { schemaAccepts, checkFrontmatter } from './document/check-frontmatter.js';
export { scanDocumentForSecrets, findSecretShapes, redactSecretShapes, type SecretFinding } from './secrets/scan-secrets.js';
export { nodeRuntime, type Runtime } from './io/runtime.js';
export { resolveRoots, type VaultRoots, type RootOptions } from './store/roots.js';
export { generateMemoryId } from './store/ids.js';
export { scanVault, walkVault, type ScanResult, type ScanEntry, type FileDiagnostic, type ScanOptions } from './scanner/scan-vault.js';
export { save as saveMemory, buildMemory, type SaveInput, type SaveResult } from './operations/save.js';
export { readMemory, backlinksOf, type ReadResult, type Backlink } from './operations/read.js';
export { initVault, type InitResult } from './operations/init.js';
export { runDoctor, type DoctorOptions } from './doctor/run-doctor.js';
export type { DoctorReport, DoctorCounts } from './doctor/report.js';
export { formatText as formatDoctorText, formatGithub as formatDoctorGithub, summaryLine as doctorSummaryLine } from './doctor/report-format.js';
export { fmtMemories, formatMemoryFile, type FmtResult, type FmtFileResult, type FmtOptions, type FmtStatus } from './operations/fmt.js';
export { shareMemory, type ShareResult } from './operations/share.js';
export {
  searchMemories,
  type SearchOptions,
  type SearchResponse,
  type SearchHit,
  type SearchDiagnostics,
} from './search/query/search-memories.js';
export { indexStatus, refreshIndex, rebuildIndex, type IndexStatus, type ScopeIndexStatus, type IndexMaintenanceOptions } from './search/index/index-status.js';
export { findSimilarMemories, type SimilarMemory } from './search/query/similar-memories.js';
export { tokenize as tokenizeText, foldText } from './search/analysis/tokenizer.js';
export {
  readTranscript,
  checkTranscriptPath,
  DEFAULT_TRANSCRIPT_MAX_BYTES,
  type ReadTranscriptOptions,
  type TranscriptPathProblem,
} from './sessions/transcripts/read-transcript.js';
export { HARNESSES, type Harness, type TranscriptSummary } from './sessions/transcripts/transcript-summary.js';
export {
  renderSnapshot,
  parseSnapshot,
  mergeSnapshots,
  snapshotFromSummary,
  SNAPSHOT_MARKER,
  SNAPSHOT_END,
  type SessionSnapshot,
} from './sessions/snapshots/snapshot.js';
export {
  resolveSessionsDir,
  listSnapshots,
  loadSnapshot,
  updateSnapshot,
  SNAPSHOT_FILE,
  type SnapshotFile,
  type UpdateResult,
} from './sessions/snapshots/snapshot-store.js';
export { discoverSnapshot, type Discovery } from './sessions/snapshots/snapshot-index.js';
export { recordSession, type RecordInput, type RecordOutcome, type RecordEvent } from './sessions/record-session.js';
export { prepareSessionStart, type StartInput, type StartOutcome } from './sessions/start/session-start.js';
export { buildInjectionText, HISTORICAL_MARKER, type MemoryPointer } from './sessions/start/injection-text.js';
export { deriveShortId, sanitizeShortId } from './sessions/snapshots/session-ids.js';
export { handoffBodyFromSnapshot } from './operations/handoff.js';
