// The one update path of the tool page: the package's validateToolUpdate in the browser first (its
// error codes shown with their labels), then POST /tool/update, whose 400 update_refused is shown the
// same way. The drawer saves with the row's version (409 conflict: see useVersionedSave).
import { ref, type Ref } from 'vue';
import { ElMessage } from 'element-plus';
import { ApiError, api, errorText } from '../server/api';
import { t } from '../base/i18n';
import { checkToolUpdate, type ToolSchema } from '../server/policy';
import type { ToolRow } from '../base/types';
import { useVersionedSave } from './useVersionedSave';

export interface Refusal {
  source: 'browser' | 'backend';
  tool: string;
  errors: { field: string; code: string }[];
}

export function useToolUpdate(catalog: Ref<ToolSchema[] | null>, onSaved: (row: ToolRow) => void) {
  const refusal = ref<Refusal | null>(null);
  const { conflict, save } = useVersionedSave<ToolRow>();

  /**
   * Sends `patch` for `row` when the package accepts it. With `versioned`, the row's version goes
   * along, and a newer row someone else saved is handed to `onCurrent`. True when saved.
   */
  async function submit(
    row: ToolRow,
    patch: Record<string, unknown>,
    opts: { versioned?: boolean; onCurrent?: (row: ToolRow) => void } = {},
  ): Promise<boolean> {
    refusal.value = null;
    conflict.value = null;
    const check = checkToolUpdate(row, patch, catalog.value ?? []);
    if (!check.ok) {
      refusal.value = { source: 'browser', tool: row.name, errors: check.errors };
      return false;
    }
    try {
      const updated = await save(
        opts.versioned ? row : null,
        (version) => api.tool.update({ id: row.id }, version === undefined ? patch : { ...patch, version }),
        (current) => {
          onSaved(current);
          opts.onCurrent?.(current);
        },
      );
      if (!updated) return false;
      onSaved(updated);
      ElMessage.success(t.value.saved);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'update_refused') {
        refusal.value = { source: 'backend', tool: row.name, errors: e.errors };
      } else {
        ElMessage.error(`${t.value.requestFailed}: ${errorText(e)}`);
      }
      return false;
    }
  }

  function clear() {
    refusal.value = null;
    conflict.value = null;
  }

  return { refusal, conflict, submit, clear };
}
