/**
 * Secrets at rest: the model channels' API keys and the MCP servers' `env` values are stored encrypted
 * (AES-256-GCM, Node's crypto) under a key kept outside the data folder, so that a copy of the database
 * (its SQLite file, a MariaDB dump, a root that reached the data folder) holds no usable secret.
 *
 * The key (32 bytes, written as 64 hex digits or 43/44 base64 characters) is, in this order:
 * - `NETACLAW_SECRET_KEY`, the key itself (several instances on one MariaDB database share it);
 * - the file `NETACLAW_SECRET_KEY_FILE`, else `$XDG_CONFIG_HOME/netaclaw/secret.key` (an absolute
 *   XDG_CONFIG_HOME), else `~/.config/netaclaw/secret.key`: read when it exists, else created (mode 0600,
 *   its folder 0700) at the first start — unless the database already holds secrets encrypted under a key,
 *   then the start stops and says which key is missing (a new key could not read them).
 * A key file inside the data folder is refused: the point is that the data folder alone opens nothing.
 *
 * A stored value is `enc:v1:<key id>:<iv>:<ciphertext+tag>` (base64url; the key id is the first 8
 * characters of the key's SHA-256, so a wrong key is told apart from a damaged value); the table and
 * column are its additional data, so a value copied into another column does not decrypt.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ValueTransformer } from 'typeorm';
import { AppError } from '../wire/errors';
import { isInside } from '../lib/paths';
import { DATA_DIR } from './settings';
import { errorMessage } from '../lib/errortext';

const PREFIX = 'enc:v1:';
const ENCRYPTED = /^enc:v1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

export interface SecretKey {
  key: Buffer;
  /** First 8 characters of the key's SHA-256 (base64url): stored with each value. */
  id: string;
  source: 'env' | 'file' | 'created';
  /** The key file (source file or created). */
  file?: string;
}

/** The key file's place: NETACLAW_SECRET_KEY_FILE, else under XDG_CONFIG_HOME, else ~/.config. */
export function secretKeyFile(): string {
  const given = process.env.NETACLAW_SECRET_KEY_FILE;
  if (given !== undefined && given !== '') return path.resolve(process.cwd(), given);
  const xdg = process.env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config');
  return path.join(base, 'netaclaw', 'secret.key');
}

function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

/** 32 bytes from 64 hex digits or base64(url); null when the text is neither. */
function parseKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''), 'base64url');
    if (b.length === 32) return b;
  }
  return null;
}

/** A key from its text (64 hex digits or base64), as NETACLAW_SECRET_KEY gives it; null when not a key. */
export function secretKeyFrom(text: string, source: SecretKey['source'] = 'env'): SecretKey | null {
  const key = parseKey(text);
  return key ? { key, id: keyId(key), source } : null;
}

/** Why a start cannot go on with the secret key: printed as is, nothing of the database changed. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/**
 * The secret key, from the environment or the key file. `create`: make the key file when there is none
 * (false: a missing key is an error). Throws SecretKeyError with a sentence saying what to fix.
 */
export function loadSecretKey(create: boolean): SecretKey {
  const fromEnv = process.env.NETACLAW_SECRET_KEY;
  if (fromEnv !== undefined && fromEnv !== '') {
    const key = parseKey(fromEnv);
    if (!key)
      throw new SecretKeyError('NETACLAW_SECRET_KEY must be 32 bytes written as 64 hex digits or in base64 (e.g. the output of `openssl rand -hex 32`)');
    return { key, id: keyId(key), source: 'env' };
  }
  const file = secretKeyFile();
  const dataReal = realOrSelf(DATA_DIR);
  if (isInside(path.resolve(file), path.resolve(DATA_DIR)) || isInside(realOrSelf(file), dataReal)) {
    throw new SecretKeyError(
      `the secret key file ${file} is inside the data folder ${DATA_DIR}: keep it elsewhere (NETACLAW_SECRET_KEY_FILE) so that the data folder alone opens no secret`
    );
  }
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SecretKeyError(`cannot read the secret key file ${file}: ${errorMessage(err)}`);
    }
  }
  if (text !== null) {
    const key = parseKey(text);
    if (!key) throw new SecretKeyError(`the secret key file ${file} does not hold a key (32 bytes as 64 hex digits or base64)`);
    tighten(file, 0o600);
    return { key, id: keyId(key), source: 'file', file };
  }
  if (!create) {
    throw new SecretKeyError(
      `the database holds secrets encrypted under a key, but there is no key: neither NETACLAW_SECRET_KEY nor the key file ${file}. ` +
        'Restore the key file (or set NETACLAW_SECRET_KEY) that encrypted them; nothing was changed'
    );
  }
  const key = crypto.randomBytes(32);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // wx: two instances starting together do not overwrite each other's key; the loser reads the winner's
  try {
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadSecretKey(false);
    throw new SecretKeyError(`cannot create the secret key file ${file}: ${errorMessage(err)}`);
  }
  return { key, id: keyId(key), source: 'created', file };
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** chmod when the mode differs (a file of another owner is left: the error says why not). */
export function tighten(p: string, mode: number): void {
  const st = fs.statSync(p);
  if ((st.mode & 0o777) !== mode) fs.chmodSync(p, mode);
}

let current: SecretKey | null = null;

/** Sets the key the entities' transformers use (the start, after checking the stored values). */
export function useSecretKey(key: SecretKey | null): void {
  current = key;
}

export function activeSecretKey(): SecretKey | null {
  return current;
}

export function isEncrypted(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** The key id a stored value was encrypted under (null: not an encrypted value). */
export function encryptedKeyId(value: string): string | null {
  const m = ENCRYPTED.exec(value);
  return m ? m[1] : null;
}

export function encrypt(plain: string, where: string, key: SecretKey): string {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key.key, iv);
  c.setAAD(Buffer.from(where, 'utf8'));
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final(), c.getAuthTag()]);
  return `${PREFIX}${key.id}:${iv.toString('base64url')}:${body.toString('base64url')}`;
}

/** The plain value; throws SecretKeyError naming the column when it was encrypted under another key or is damaged. */
export function decrypt(value: string, where: string, key: SecretKey): string {
  const m = ENCRYPTED.exec(value);
  if (!m) throw new SecretKeyError(`${where}: a stored secret is not in the encrypted form`);
  if (m[1] !== key.id) {
    throw new SecretKeyError(
      `${where}: a stored secret was encrypted under the key with id ${m[1]}, the key loaded has id ${key.id}: ` +
        'start with the key that encrypted it (NETACLAW_SECRET_KEY or its key file)'
    );
  }
  const body = Buffer.from(m[3], 'base64url');
  if (body.length < 16) throw new SecretKeyError(`${where}: a stored secret is damaged (too short)`);
  try {
    const d = crypto.createDecipheriv('aes-256-gcm', key.key, Buffer.from(m[2], 'base64url'));
    d.setAAD(Buffer.from(where, 'utf8'));
    d.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError(`${where}: a stored secret does not decrypt under the loaded key (damaged, or another key with the same id)`);
  }
}

function mustKey(where: string): SecretKey {
  if (!current) throw new AppError(503, 'secret_key_unavailable', `${where}: the secret key is not loaded yet`);
  return current;
}

/** A read that cannot decrypt is a 503 with a code (never a 500), naming the column, never the value. */
function readable(value: string, where: string): string {
  if (!isEncrypted(value)) return value; // a value written before encryption, encrypted at the next start
  try {
    return decrypt(value, where, mustKey(where));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(503, 'secret_unreadable', errorMessage(err));
  }
}

/** A string column stored encrypted (null and '' stay as they are). */
export function secretString(where: string): ValueTransformer {
  return {
    to: (value: unknown) => (typeof value === 'string' && value !== '' && !isEncrypted(value) ? encrypt(value, where, mustKey(where)) : value),
    from: (value: unknown) => (typeof value === 'string' && value !== '' ? readable(value, where) : value),
  };
}

/** A JSON object column of strings whose values are stored encrypted (the names stay readable). */
export function secretValues(where: string): ValueTransformer {
  const map = (value: unknown, f: (v: string) => string) => {
    if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? f(v) : v]));
  };
  return {
    to: (value: unknown) => map(value, v => (isEncrypted(v) ? v : encrypt(v, where, mustKey(where)))),
    from: (value: unknown) => map(typeof value === 'string' ? safeParse(value) : value, v => readable(v, where)),
  };
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const CHANNEL_API_KEY = 'netaclaw_model_channel.apiKey';
export const MCP_ENV = 'netaclaw_mcp_server.env';

/** The encrypted length a channel's API key may take (its column is varchar(1000)). */
export const API_KEY_COLUMN_CHARS = 1000;
/** The longest API key accepted: its encrypted form fits the column. */
export const API_KEY_MAX_CHARS = 600;
