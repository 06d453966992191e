/**
 * @module guidance — guidance docs (embedded in `assets/guidance/`, overridden per home and per
 * project), the taskspace store `<project>/.firstlight/taskspace.json`, and the `yiasou` boot
 * prompt that inlines both; declared as MCP tools, resources and prompts for the mind server.
 */

export type { BootPromptInput, YiasouMode, YiasouSetting } from './boot-prompt.js';
export {
  assembleBootPrompt,
  BOOT_PROMPT_ALIASES,
  BOOT_PROMPT_NAME,
  HOSTS_READING_RESOURCES,
  yiasouModeFor,
} from './boot-prompt.js';
export { GUIDANCE_MIME_TYPE, guidancePrompts, guidanceResources } from './content.js';
export type { GuidanceDoc, GuidanceLayer, GuidanceProblem, GuidanceSet, GuidanceSource } from './docs.js';
export {
  embeddedGuidanceDir,
  GUIDANCE_NAME,
  GUIDANCE_URI_PREFIX,
  loadGuidance,
  MAX_GUIDANCE_BYTES,
} from './docs.js';
export type { Expansion, GuidanceOptions, GuidancePacketEntry, Section } from './guidance.js';
export { createGuidance, findDoc, Guidance } from './guidance.js';
export type { ProjectLocation } from './project.js';
export { findProject, PROJECT_STATE_DIR, projectAt } from './project.js';
export type { ProjectIdentity } from './project-identity.js';
export { PROJECT_ID_FILE, projectIdentity } from './project-identity.js';
export type { Taskspace, TaskspacePatch, TaskspaceRead, TaskspaceWrite } from './taskspace-store.js';
export { readTaskspace, TASKSPACE_LIMITS, writeTaskspace } from './taskspace-store.js';
export type { TaskspaceEntry } from './taskspaces.js';
export { listTaskspaces, newTaskspace, switchTaskspace } from './taskspaces.js';
export { guidanceTools } from './tools.js';
