#!/usr/bin/env bash
# The demo's Python MCP server from PyPI — `mcp-server-time` (the reference time server, built on
# FastMCP) — in a virtual environment of the project, `.tools/mcp-python`; its command is
# `.tools/mcp-python/bin/mcp-server-time`. Run by scripts/setup.sh; quick when it is installed already (one
# `pip show`). The venv is made from the system's Python (/usr/bin/python3, which every sandbox has; another
# one on PATH, e.g. pyenv's under a home folder, would have to be bound into the server's sandbox too):
# Debian's `python3-venv` is installed when it lacks (sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_TIME_VERSION=2026.10.19
venv=.tools/mcp-python

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

installed="$("$venv/bin/python" -m pip show mcp-server-time 2>/dev/null | sed -n 's/^Version: //p' || true)"
if [ "$installed" = "$MCP_TIME_VERSION" ] && [ -x "$venv/bin/mcp-server-time" ]; then
  exit 0
fi
printf '\n== setup: mcp-server-time %s from PyPI into %s\n' "$MCP_TIME_VERSION" "$venv"
python=/usr/bin/python3
[ -x "$python" ] || python=python3
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q "mcp-server-time==$MCP_TIME_VERSION"
"$venv/bin/mcp-server-time" --help >/dev/null
