// A level of rules as its editor holds it: one list of pattern texts per effect (the effects of
// `ruleDefaults()`, in its order), the default ('' = none) and, for the global level, the protected
// paths (null = the package's default list, `ruleDefaults().protectedPaths`). `rulesOf` turns it into
// the input the package and the backend take; `errorsOf` checks every pattern with the package and says
// each refusal in the page's language, under the path the package and the backend name
// (`rules.agent.deny[2]`), so that the backend's `errors[].field` lands on the same row.
import { computed, reactive, ref, type Ref } from 'vue';
import { ApiError } from '../server/api';
import { patternErrors, rulesVocabulary } from '../server/policy';
import type { GlobalRules } from '../base/types';
import { ruleErrorSentence } from '../server/ruleText';

export interface LevelDraft {
  lists: Record<string, string[]>;
  default: string;
  protectedPaths: string[] | null;
}

/** A draft of stored rules (null: none). */
export function draftOf(rules: GlobalRules | null | undefined): LevelDraft {
  const lists: Record<string, string[]> = {};
  for (const e of rulesVocabulary().effects) lists[e] = [...(rules?.[e] ?? [])];
  return { lists, default: rules?.default ?? '', protectedPaths: rules?.protectedPaths == null ? null : [...rules.protectedPaths] };
}

/**
 * The rules of a draft as the package and the backend take them: each pattern trimmed, in place (a row's
 * index is its pattern's index), empty lists and an unset default left out, null when nothing is set.
 */
export function rulesOf(draft: LevelDraft, withProtected: boolean): GlobalRules | null {
  const out: Record<string, unknown> = {};
  for (const e of rulesVocabulary().effects) {
    const list = (draft.lists[e] ?? []).map((p) => p.trim());
    if (list.length > 0) out[e] = list;
  }
  if (draft.default !== '') out.default = draft.default;
  if (withProtected && draft.protectedPaths !== null) out.protectedPaths = draft.protectedPaths.map((p) => p.trim());
  return Object.keys(out).length === 0 ? null : (out as GlobalRules);
}

/**
 * The editor's state for one level: the draft, the rules it stands for, and the message of each row the
 * package refuses or the backend refused (by input path). An empty row says so only once a save was
 * tried (a row just added is not an error yet).
 */
export function useRulesDraft(level: string, withProtected: boolean) {
  const draft = reactive<LevelDraft>(draftOf(null));
  const rules = computed(() => rulesOf(draft, withProtected));
  const saveTried = ref(false);
  /** The backend's refusals of the last save, by path; a row's is dropped once the row changes. */
  const backendErrors: Ref<Map<string, { text: string; pattern: string }>> = ref(new Map());

  const browserErrors = computed(() => {
    const out = new Map<string, string>();
    for (const [path, message] of patternErrors(level, rules.value)) out.set(path, ruleErrorSentence(message));
    return out;
  });

  /** The pattern of a path of this level (`rules.agent.deny[2]`), as the rule stands now. */
  function patternAt(path: string): string | undefined {
    const m = /\.(\w+)\[(\d+)\]$/.exec(path);
    if (!m) return undefined;
    const list = m[1] === 'protectedPaths' ? draft.protectedPaths : draft.lists[m[1]];
    return list?.[Number(m[2])]?.trim();
  }

  /** The message under a row: the package's, else the backend's while the row is as it was sent. */
  function errorAt(path: string): string {
    const pattern = patternAt(path);
    if (pattern === '' && !saveTried.value) return '';
    const mine = browserErrors.value.get(path);
    if (mine) return mine;
    const theirs = backendErrors.value.get(path);
    return theirs && theirs.pattern === pattern ? theirs.text : '';
  }

  /** Whether the package refuses a row (an empty one included): a save is refused in the browser. */
  const invalid = computed(() => browserErrors.value.size > 0);

  /**
   * The rules the "try it" box answers with: the draft without its empty rows (a row just added), and
   * whether a row it keeps is refused (then nothing can be tried).
   */
  const tryRules = computed(() => {
    const lists: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(draft.lists)) lists[k] = v.filter((p) => p.trim() !== '');
    return rulesOf({ lists, default: draft.default, protectedPaths: draft.protectedPaths?.filter((p) => p.trim() !== '') ?? null }, withProtected);
  });
  const tryInvalid = computed(() => [...browserErrors.value.keys()].some((path) => patternAt(path) !== ''));

  /**
   * Keeps the backend's 400 `invalid_input` refusals of this level's rows (`errors[].field`
   * `rules.agent.deny[2]`), said with the package's sentence of its message when the message names that
   * row; true when it named one.
   */
  function takeBackendError(e: unknown): boolean {
    if (!(e instanceof ApiError) || e.code !== 'invalid_input') return false;
    const prefix = `rules.${level}.`;
    const mine = e.errors.filter((f) => f.field.startsWith(prefix));
    if (mine.length === 0) return false;
    const map = new Map<string, { text: string; pattern: string }>();
    for (const f of mine) {
      const said = e.message.startsWith(`${f.field}:`) ? e.message.slice(f.field.length + 1) : '';
      map.set(f.field, { text: ruleErrorSentence(said), pattern: patternAt(f.field) ?? '' });
    }
    backendErrors.value = map;
    return true;
  }

  function load(stored: GlobalRules | null | undefined) {
    Object.assign(draft, draftOf(stored));
    saveTried.value = false;
    backendErrors.value = new Map();
  }

  return { draft, rules, errorAt, invalid, tryRules, tryInvalid, saveTried, takeBackendError, load };
}

export type RulesDraft = ReturnType<typeof useRulesDraft>;
