/**
 * Kind templates: load, fill from section values, and the editor draft of `vault new`.
 */
export {
  loadTemplate,
  loadAllTemplates,
  parseTemplate,
  defaultTemplatesDir,
  normalizeSectionName,
  type KindTemplate,
  type TemplateSection,
} from './kind-template.js';
export { fillTemplate, parseSectionValues, findSection, type SectionValue } from './fill-template.js';
export { appendRelatedLine } from './related-links.js';
export { renderDraft, readDraft, cleanDraftBody, DRAFT_FIELDS, DRAFT_INSTRUCTIONS, type DraftValues, type DraftInput } from './editor-draft.js';
