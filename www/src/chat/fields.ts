// The session fields of a chat or a batch as the page edits them, and as a request sends them.
import type { SessionFields } from '../base/types';

export function blankFields(): SessionFields {
  return { sessionCwd: '', workspaceRoots: [], shellPermitted: false, writePermitted: false };
}

/** The fields as the backend takes them: an empty cwd or root means absent. */
export function requestFields(f: SessionFields): SessionFields {
  return {
    sessionCwd: f.sessionCwd?.trim() ? f.sessionCwd.trim() : null,
    workspaceRoots: f.workspaceRoots.map((r) => r.trim()).filter((r) => r !== ''),
    shellPermitted: f.shellPermitted,
    writePermitted: f.writePermitted,
  };
}
