'use strict';
// Reads the secrets at rest as the backend stores them (src/config/secrets.ts), for tests that look at the rows.
const path = require('node:path');
const { BACKEND_ROOT, SECRET_KEY } = require('./server');

const secrets = () => require(path.join(BACKEND_ROOT, 'dist', 'config', 'secrets.js'));

/** The plain value of a stored secret (`where`: 'netaclaw_model_channel.apiKey' / 'netaclaw_mcp_server.env'). */
function plainSecret(stored, where, keyText = SECRET_KEY) {
  const s = secrets();
  return s.decrypt(stored, where, s.secretKeyFrom(keyText));
}

module.exports = { plainSecret, secrets, CHANNEL_API_KEY: 'netaclaw_model_channel.apiKey', MCP_ENV: 'netaclaw_mcp_server.env' };
