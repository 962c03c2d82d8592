// Tool definition drift: snapshots of tool definitions, the approved set, and the check.
export {
  toolDefinition,
  definitionSnapshot,
  COMPARED_FIELDS,
  type ComparedField,
  type ToolDefinitionSnapshot,
} from './definition.js';
export {
  compareToolDefinitions,
  formatDriftReport,
  type DriftKind,
  type ToolChange,
  type ToolDriftReport,
  type UncheckedSource,
} from './compare.js';
export {
  readApprovedTools,
  parseApprovedTools,
  approvedToolsJson,
  approveDefinitions,
  writeApprovedTools,
  APPROVED_FORMAT,
} from './approved-file.js';
export {
  checkToolDrift,
  currentDefinitions,
  answerWithin,
  DEFAULT_SOURCE_TIMEOUT_MS,
  type DriftCheckOptions,
  type ToolDefinitionSource,
  type ToolSet,
  type CurrentDefinitions,
} from './check.js';
