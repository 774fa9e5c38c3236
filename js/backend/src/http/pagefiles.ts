import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import * as zlib from 'zlib';

const gzip = promisify(zlib.gzip);

/** The built pages' files served compressed (the rest is sent as it is). */
export const COMPRESSIBLE_EXTENSIONS: readonly string[] = ['.wasm', '.js', '.mjs', '.css', '.html', '.svg', '.json'];

/** Files larger than this are not held in memory: they are sent as they are. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** What the cache holds at most (raw and gzip bytes); the oldest entries go first. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** The request headers the answer depends on (Node's lower-case names). */
export interface PageFileRequest {
  'accept-encoding'?: string | string[];
  'if-none-match'?: string | string[];
  'if-modified-since'?: string | string[];
}

/**
 * A page file's answer: 200 with its bytes (gzip when the request accepts it and it is smaller), or
 * 304 without a body. `headers` are Content-Encoding (gzip only), Content-Length (of the bytes sent),
 * ETag (one per encoding), Last-Modified and Vary; the server adds the rest (Content-Type, caching).
 */
export interface PageFileAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Buffer | null;
}

interface Entry {
  mtimeMs: number;
  size: number;
  mtime: Date;
  raw: Buffer;
  /** null when gzip is not smaller than the file */
  gzip: Buffer | null;
  tag: string;
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

/**
 * Whether the answer may be gzip, from Accept-Encoding (RFC 9110 §12.5.3): gzip's weight (or `*`'s)
 * above zero and not below identity's. Identity's weight is its own, else `*`'s, else the lowest listed
 * (so `gzip;q=0.5` alone still gets gzip). No header: identity.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header || !header.trim()) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (!coding) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*(.*?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    weights.set(coding === 'x-gzip' ? 'gzip' : coding, Number.isFinite(q) ? q : 0);
  }
  if (weights.size === 0) return false;
  const gzipQ = weights.get('gzip') ?? weights.get('*') ?? 0;
  const identityQ = weights.get('identity') ?? weights.get('*') ?? Math.min(...weights.values());
  return gzipQ > 0 && gzipQ >= identityQ;
}

/** Whether If-None-Match names one of `tags` (weak comparison; `*` names any). */
function noneMatch(header: string, tags: string[]): boolean {
  return header.split(',').some(t => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tags.includes(tag);
  });
}

/**
 * The built pages' compressible files (COMPRESSIBLE_EXTENSIONS), each read and gzipped (level 9) once
 * and held in memory, keyed by path, modification time and size: a changed file is read again; a
 * request never compresses. Serves the pages in the backend (middleware/static.ts) and in the
 * browser benchmark (js/bench/browser.mjs), so both send the same bytes with the same headers.
 */
export class PageFiles {
  private readonly entries = new Map<string, Promise<Entry | null>>();
  private readonly sizes = new Map<string, number>();
  private held = 0;

  /** Whether `file` is one this serves (by its extension). */
  static compressible(file: string): boolean {
    return COMPRESSIBLE_EXTENSIONS.includes(path.extname(file).toLowerCase());
  }

  /**
   * The answer for `file` (an absolute path the caller has resolved and confined) to a GET or HEAD
   * with `headers`, or null when this does not serve it (not compressible, not a file, too large,
   * gone): the caller then sends it as before.
   */
  async answer(file: string, headers: PageFileRequest): Promise<PageFileAnswer | null> {
    if (!PageFiles.compressible(file)) return null;
    let stats: fs.Stats;
    try {
      stats = await fs.promises.stat(file);
    } catch {
      return null;
    }
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return null;
    const entry = await this.entry(file, stats);
    if (!entry) return null;

    const tags = [`"${entry.tag}"`, `"${entry.tag}-gzip"`];
    const useGzip = entry.gzip !== null && acceptsGzip(one(headers['accept-encoding']));
    const out: Record<string, string> = {
      ETag: useGzip ? tags[1] : tags[0],
      'Last-Modified': entry.mtime.toUTCString(),
      Vary: 'Accept-Encoding',
    };
    const ifNoneMatch = one(headers['if-none-match']);
    const ifModifiedSince = one(headers['if-modified-since']);
    let notModified: boolean;
    if (ifNoneMatch !== undefined) notModified = noneMatch(ifNoneMatch, tags);
    else {
      const since = ifModifiedSince === undefined ? NaN : Date.parse(ifModifiedSince);
      notModified = !Number.isNaN(since) && Math.floor(entry.mtimeMs / 1000) * 1000 <= since;
    }
    if (notModified) return { status: 304, headers: out, body: null };
    const body = useGzip ? entry.gzip! : entry.raw;
    if (useGzip) out['Content-Encoding'] = 'gzip';
    out['Content-Length'] = String(body.length);
    return { status: 200, headers: out, body };
  }

  private async entry(file: string, stats: fs.Stats): Promise<Entry | null> {
    const cached = this.entries.get(file);
    if (cached) {
      const entry = await cached;
      if (entry && entry.mtimeMs === stats.mtimeMs && entry.size === stats.size) return entry;
      if (this.entries.get(file) !== cached) return this.entry(file, stats);
      this.forget(file);
    }
    const loading = this.load(file);
    this.entries.set(file, loading);
    const entry = await loading;
    if (!entry) {
      if (this.entries.get(file) === loading) this.forget(file);
      return null;
    }
    if (this.entries.get(file) === loading) {
      const bytes = entry.raw.length + (entry.gzip?.length ?? 0);
      this.sizes.set(file, bytes);
      this.held += bytes;
      for (const old of this.entries.keys()) {
        if (this.held <= MAX_CACHE_BYTES || old === file) break;
        this.forget(old);
      }
    }
    return entry;
  }

  private forget(file: string) {
    this.entries.delete(file);
    this.held -= this.sizes.get(file) ?? 0;
    this.sizes.delete(file);
  }

  /** Reads the file (its size and time from the open file, so they match the bytes) and gzips it. */
  private async load(file: string): Promise<Entry | null> {
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(file, 'r');
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return null;
      const raw = await handle.readFile();
      const packed = await gzip(raw, { level: 9 });
      const tag = crypto.createHash('sha256').update(raw).digest('base64url').slice(0, 27);
      return { mtimeMs: stats.mtimeMs, size: raw.length, mtime: stats.mtime, raw, gzip: packed.length < raw.length ? packed : null, tag };
    } catch {
      return null;
    } finally {
      await handle?.close();
    }
  }
}
