/**
 * Wire shapes of the serve protocol v1 (shared/spec/serve-protocol-v1.md).
 *
 * Every event may carry fields that are not listed here (additive changes are
 * not breaking), so consumers read what they know and ignore the rest.
 * No `vscode` import: this module is shared by the extension and the tests.
 */

export interface Stats {
  iterations?: number;
  prompt_tokens?: number;
  billed_prompt_tokens?: number;
  output_tokens?: number;
  duration_ms?: number;
  tokens_per_sec?: number;
}

export interface SkillInfo {
  name: string;
  description: string;
}

export interface PlanItem {
  text: string;
  done: boolean;
}

export interface SessionItem {
  path: string;
  title: string;
  saved_at: number;
  cwd: string;
  model: string;
  turns: number;
}

/** A review segment: an unchanged run, or one change (one hunk). */
export type Segment =
  | { same: true; lines: string[] }
  | { same: false; old: string[]; new: string[] };

export interface RiftEventMap {
  iteration: { event: 'iteration'; n: number };
  thinking: { event: 'thinking'; text: string };
  content: { event: 'content'; text: string };
  tool_start: { event: 'tool_start'; name: string; args: Record<string, unknown> };
  tool_result: { event: 'tool_result'; name: string; ok: boolean; preview: string };
  edit_diff: { event: 'edit_diff'; path: string; added: number; removed: number; diff: string[] };
  plan: { event: 'plan'; items: PlanItem[] };
  done: { event: 'done'; stats: Stats };
  ask: { event: 'ask'; id: number; question: string; detail: string[]; choices: string[] };
  edit_review: {
    event: 'edit_review';
    id: number;
    tool: string;
    path: string;
    old: string;
    new: string;
    segments?: Segment[];
  };
  edit_review_closed: { event: 'edit_review_closed'; id: number };
  ready: {
    event: 'ready';
    model: string;
    session: string;
    cwd: string;
    version: string;
    protocol_version: number;
    num_ctx: number;
    approve?: boolean;
    skills?: SkillInfo[];
    commands?: string[];
  };
  capabilities: { event: 'capabilities'; protocol_version: number; edit_review: boolean; approve?: boolean };
  context: { event: 'context'; used: number; limit: number };
  sessions: { event: 'sessions'; items: SessionItem[] };
  models: { event: 'models'; models: string[]; current: string };
  model_changed: { event: 'model_changed'; model: string; num_ctx: number; note: string };
  approval_changed: { event: 'approval_changed'; approve: boolean };
  history: { event: 'history'; messages: { role: string; text: string }[] };
  info: { event: 'info'; text: string };
  warning: { event: 'warning'; text: string };
  subagent_started: { event: 'subagent_started'; tag: string; model: string; label: string };
  subagent: { event: 'subagent'; tag: string; text: string; warn: boolean };
  subagent_finished: { event: 'subagent_finished'; tag: string; steps: number };
  task_started: { event: 'task_started'; id: number; label: string };
  task_finished: { event: 'task_finished'; id: number; label: string; ok: boolean; preview: string };
}

export type EventName = keyof RiftEventMap;
export type RiftEvent = RiftEventMap[EventName];

/** Any parsed event object, known or not (`event` is always a string). */
export interface RawEvent {
  event: string;
  [field: string]: unknown;
}

export const KNOWN_EVENTS: ReadonlySet<string> = new Set<EventName>([
  'iteration',
  'thinking',
  'content',
  'tool_start',
  'tool_result',
  'edit_diff',
  'plan',
  'done',
  'ask',
  'edit_review',
  'edit_review_closed',
  'ready',
  'capabilities',
  'context',
  'sessions',
  'models',
  'model_changed',
  'approval_changed',
  'history',
  'info',
  'warning',
  'subagent_started',
  'subagent',
  'subagent_finished',
  'task_started',
  'task_finished',
]);

export function isKnownEvent(event: RawEvent): event is RawEvent & RiftEvent {
  return KNOWN_EVENTS.has(event.event);
}
