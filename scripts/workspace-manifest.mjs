// Pins a workspace's dependency on the SDK for its tarball, and puts it back afterwards.
//
// Why: in this repository `tenant-messaging-cli` and `tenant-messaging-mcp` depend on the SDK as
// `file:../..`, so `npm ci` links the root package instead of asking the registry for a version
// that is not published yet. A published tarball must name a version instead: the SDK's own,
// since the three packages are released in lockstep. The Stainless workspaces do the same with
// a `file:` dependency on the SDK's build and a version written into the packed package.json.
//
// Usage (the workspace's prepack and postpack, run in its folder):
//   node ../../scripts/workspace-manifest.mjs pin       # file:../.. -> the SDK's exact version
//   node ../../scripts/workspace-manifest.mjs restore   # back to file:../..
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const SDK = 'tenant-messaging';
const manifest = 'package.json';
// Kept beside package.json while packing; not in the workspace's `files`, so never packed.
const saved = '.package.json.dev';

const mode = process.argv[2];
if (mode === 'pin') {
  // A pack or publish that failed after its pin never ran its postpack: put the repository's
  // manifest back first, so that a pin never starts from a pinned one.
  if (existsSync(saved)) renameSync(saved, manifest);
  const sdk = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const text = readFileSync(manifest, 'utf8');
  const workspace = JSON.parse(text);
  if (workspace.version !== sdk.version) {
    throw new Error(
      `${workspace.name} is ${workspace.version} but ${SDK} is ${sdk.version}: they are released in lockstep`,
    );
  }
  if (workspace.dependencies?.[SDK] !== 'file:../..') {
    throw new Error(
      `${workspace.name} must depend on ${SDK} as file:../.. in the repository, found ${workspace.dependencies?.[SDK]}`,
    );
  }
  writeFileSync(saved, text);
  workspace.dependencies[SDK] = sdk.version;
  writeFileSync(manifest, `${JSON.stringify(workspace, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  throw new Error(`usage: workspace-manifest.mjs pin|restore (got ${mode})`);
}
