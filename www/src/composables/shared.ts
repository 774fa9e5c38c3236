// Data every page of the app shares (the catalog, the model channels): fetched once, kept in one place;
// a failed fetch is kept as its error text and tried again at the next `load()` (after a login, say).
import { ref, shallowRef } from 'vue';
import { errorText } from '../server/api';

export function shared<T>(fetch: () => Promise<T>) {
  const value = shallowRef<T | null>(null);
  const error = ref('');
  let loading: Promise<void> | null = null;
  function load(): Promise<void> {
    loading ??= fetch()
      .then((v) => {
        value.value = v;
        error.value = '';
      })
      .catch((e: unknown) => {
        error.value = errorText(e);
        loading = null;
      });
    return loading;
  }
  /** Fetches again (after the backend's data changed, e.g. MCP tools joined the catalog). */
  function reload(): Promise<void> {
    loading = null;
    return load();
  }
  return { value, error, load, reload };
}
