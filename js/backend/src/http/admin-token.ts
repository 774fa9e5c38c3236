import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

export interface AdminToken {
  token: string;
  source: 'env' | 'file' | 'created';
  file?: string;
}

/**
 * The admin token: `ADMIN_TOKEN` when set, else the one stored in `<dataDir>/admin-token`, else a new
 * random one written there (mode 0600).
 */
export function loadAdminToken(dataDir: string): AdminToken {
  const fromEnv = process.env.ADMIN_TOKEN;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { token: fromEnv.trim(), source: 'env' };
  const file = path.join(dataDir, 'admin-token');
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored !== '') return { token: stored, source: 'file', file };
  }
  const token = crypto.randomBytes(32).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, token + '\n', { mode: 0o600 });
  return { token, source: 'created', file };
}

function digest(s: string): Buffer {
  return crypto.createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time comparison (equal-length SHA-256 digests). */
export function tokenMatches(given: string, expected: string): boolean {
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
