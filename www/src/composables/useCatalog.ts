// The tool catalog the pages work with, loaded once for the whole app. Every package call of the
// pages passes it, so that the pages and the backend decide on the same tools.
import { computed, ref, shallowRef } from 'vue';
import { builtinCatalog, catalogInfo } from '@netaclaw/tool-policy';
import type { CatalogInfo, ToolSchema } from '@netaclaw/tool-policy';

const catalog = shallowRef<ToolSchema[] | null>(null);
const error = ref('');
let loading: Promise<void> | null = null;

async function fetchCatalog(): Promise<ToolSchema[]> {
  return builtinCatalog();
}

function load(): Promise<void> {
  loading ??= fetchCatalog()
    .then((c) => {
      catalog.value = c;
      error.value = '';
    })
    .catch((e: unknown) => {
      error.value = e instanceof Error ? e.message : String(e);
      loading = null; // a later page (after a login, say) tries again
    });
  return loading;
}

/** The catalog as loaded so far (empty before the first load): for code outside a component. */
export function catalogNow(): ToolSchema[] {
  return catalog.value ?? [];
}

export function useCatalog() {
  if (!catalog.value) void load();
  const info = computed<CatalogInfo | null>(() => (catalog.value ? catalogInfo(catalog.value) : null));
  return { catalog, info, error, ready: load };
}
