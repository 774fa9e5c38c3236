/**
 * Where a sandbox finds its way out (net/sandbox.ts), and the environment that points its clients there.
 * A module of constants only: a worker reads it inside its sandbox (its shells inherit the settings),
 * where the proxy's own code is never loaded.
 */
/** Where the proxy's socket is inside a sandbox, and the bridge's loopback port there. */
export const SANDBOX_NET_SOCKET = '/run/netaclaw/net.sock';
export const SANDBOX_PROXY_PORT = 3128;
const PROXY_URL = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;

/** The environment that points a sandbox's clients at the bridge. */
export const NET_ENV: Readonly<Record<string, string>> = {
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  ALL_PROXY: PROXY_URL,
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  all_proxy: PROXY_URL,
  npm_config_proxy: PROXY_URL,
  npm_config_https_proxy: PROXY_URL,
  PIP_PROXY: PROXY_URL,
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'http.proxy',
  GIT_CONFIG_VALUE_0: PROXY_URL,
  NODE_USE_ENV_PROXY: '1',
};

/** The proxy settings this process was given (a worker inside its sandbox hands them to its shells). */
export function inheritedNetEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (env.HTTP_PROXY !== PROXY_URL) return {};
  return { ...NET_ENV };
}
