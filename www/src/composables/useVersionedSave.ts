// A save that carries the version the record was loaded at. When someone else saved the record in
// between, the backend answers 409 `conflict` with the record as it is now: nothing was written; the
// page shows what differs (`conflict`) and takes the current record (`onCurrent`) to edit again.
import { ref, type Ref } from 'vue';
import { ApiError } from '../server/api';

export interface Conflict<T> {
  loaded: T;
  current: T;
}

export function useVersionedSave<T extends { version: number }>() {
  const conflict = ref(null) as Ref<Conflict<T> | null>;

  /**
   * `write(version)` sends the save; its answer is returned. A conflict is kept in `conflict`, handed to
   * `onCurrent` and answered `null`; any other error is thrown.
   */
  async function save(loaded: T | null, write: (version: number | undefined) => Promise<T>, onCurrent: (current: T) => void): Promise<T | null> {
    conflict.value = null;
    try {
      return await write(loaded?.version);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'conflict' && e.current && loaded) {
        const current = e.current as T;
        conflict.value = { loaded, current };
        onCurrent(current);
        return null;
      }
      throw e;
    }
  }

  return { conflict, save };
}
