// The tool page's table: filters, pager and rows from POST /tool/page, and for each row what the
// package says of it (toolRowView: protection, prompt-hint state, strategy; its manifest).
import { computed, reactive, ref, type Ref } from 'vue';
import { api, type ToolPageQuery } from '../server/api';
import { policyError } from '../server/errors';
import { manifestOf, rowView, type ToolManifest, type ToolRowView, type ToolSchema } from '../server/policy';
import type { ToolRow } from '../base/types';
import { useLoader } from './useLoader';

export interface RowInfo {
  /** The package's view of the row, or why it refuses the row. */
  view: ToolRowView | null;
  viewError: string;
  /** The catalog manifest (null for an orphan row). */
  manifest: ToolManifest | null;
}

export function useToolRows(catalog: Ref<ToolSchema[] | null>) {
  const filters = reactive({ name: '', toolset: '', status: '' as '' | 0 | 1, capability: '' });
  const pager = reactive({ page: 1, size: 50, total: 0 });
  const rows = ref<ToolRow[]>([]);
  const { loading, error, run } = useLoader();

  const infos = computed(() => {
    const out: Record<string, RowInfo> = {};
    const c = catalog.value;
    if (!c) return out;
    for (const r of rows.value) {
      const v = rowView(r, c);
      out[r.name] = { view: v.ok ? v.view : null, viewError: v.ok ? '' : policyError(v.error), manifest: manifestOf(r.name, c) };
    }
    return out;
  });

  function query(): ToolPageQuery {
    const q: ToolPageQuery = { page: pager.page, size: pager.size };
    if (filters.name.trim()) q.name = filters.name.trim();
    if (filters.toolset) q.toolset = filters.toolset;
    if (filters.status !== '') q.status = filters.status;
    if (filters.capability) q.capability = filters.capability;
    return q;
  }

  async function load() {
    await run(async () => {
      const res = await api.tool.page(query());
      rows.value = res.list;
      pager.total = res.pagination.total;
    });
  }

  function search() {
    pager.page = 1;
    void load();
  }

  function reset() {
    Object.assign(filters, { name: '', toolset: '', status: '', capability: '' });
    search();
  }

  /** Puts a row the backend answered in place of the shown one. */
  function replace(updated: ToolRow) {
    const i = rows.value.findIndex((r) => r.id === updated.id);
    if (i >= 0) rows.value.splice(i, 1, updated);
  }

  return { filters, pager, rows, infos, loading, error, load, search, reset, replace };
}
