// The loading flag and the error text of a page's requests: `run(fn)` sets both around `fn`.
import { ref } from 'vue';
import { errorText } from '../server/api';

export function useLoader() {
  const loading = ref(false);
  const error = ref('');
  async function run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    loading.value = true;
    error.value = '';
    try {
      return await fn();
    } catch (e) {
      error.value = errorText(e);
      return undefined;
    } finally {
      loading.value = false;
    }
  }
  return { loading, error, run };
}
