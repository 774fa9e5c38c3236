// What the pages of a list of records edited in a dialog share (model channels, MCP servers): on the list,
// the dialog's open flag and the record it edits (null: a new one), and row actions whose error is shown
// as a sentence; in the dialog, the form's rules checked before it sends, its error sentence and its saving flag.
import { nextTick, ref, type Ref } from 'vue';
import { ElMessage, type FormInstance, type FormItemRule } from 'element-plus';
import { errorText } from '../server/api';

/** The list side: `add()` / `edit(row)` open the dialog; `act(fn, done)` runs a row action, then reloads. */
export function useRecordList<T>(load: () => Promise<void>) {
  const dialogOpen = ref(false);
  const editing = ref(null) as Ref<T | null>;
  const actionError = ref('');
  function add() {
    editing.value = null;
    dialogOpen.value = true;
  }
  function edit(row: T) {
    editing.value = row;
    dialogOpen.value = true;
  }
  async function act(fn: () => Promise<unknown>, done: string) {
    actionError.value = '';
    try {
      await fn();
      ElMessage.success(done);
    } catch (e) {
      actionError.value = errorText(e);
    }
    await load();
  }
  return { dialogOpen, editing, actionError, add, edit, act };
}

/**
 * The dialog side (`formRef`: its el-form): `reset()` when it opens; `submit(send)` checks the form's rules, sends, closes the dialog
 * and hands the saved record to `saved` — or keeps it open with the error's sentence.
 */
export function useRecordForm<T>(open: Ref<boolean>, formRef: Ref<FormInstance | undefined>, saved: (record: T) => void) {
  const error = ref('');
  const saving = ref(false);
  function reset() {
    error.value = '';
    void nextTick(() => formRef.value?.clearValidate());
  }
  async function submit(send: () => Promise<T>) {
    error.value = '';
    if (!(await formRef.value?.validate().catch(() => false))) return;
    saving.value = true;
    try {
      const record = await send();
      open.value = false;
      saved(record);
    } catch (e) {
      error.value = errorText(e);
    } finally {
      saving.value = false;
    }
  }
  return { error, saving, reset, submit };
}

/** A whole http(s) address. */
export function isHttpUrl(v: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(v.trim()).protocol);
  } catch {
    return false;
  }
}

/** A form rule from a check that answers what is wrong (the message), or null. */
export function checkRule(check: (v: string) => string | null, trigger: 'blur' | 'change' = 'blur'): FormItemRule {
  return {
    trigger,
    validator: (_r: unknown, v: string, cb: (e?: Error) => void) => {
      const problem = check(v ?? '');
      return problem ? cb(new Error(problem)) : cb();
    },
  };
}
