// The tool catalog the pages work with — the backend's merged catalog (GET /tool/catalog: the builtin
// tools, then NETACLAW_CATALOG_FILE's) — loaded once for the whole app. Every package call of the pages
// passes it, so that a tool registered by file shows up everywhere and the pages decide as the backend.
import { computed } from 'vue';
import { catalogInfo } from '@netaclaw/tool-policy';
import type { CatalogInfo, ToolSchema } from '@netaclaw/tool-policy';
import { api } from '../server/api';
import { shared } from './shared';

const store = shared<ToolSchema[]>(() => api.tool.catalog());

/** The catalog as loaded so far (empty before the first load): for code outside a component. */
export function catalogNow(): ToolSchema[] {
  return store.value.value ?? [];
}

export function useCatalog() {
  if (!store.value.value) void store.load();
  const info = computed<CatalogInfo | null>(() => (store.value.value ? catalogInfo(store.value.value) : null));
  return { catalog: store.value, info, error: store.error, ready: store.load, reload: store.reload };
}
