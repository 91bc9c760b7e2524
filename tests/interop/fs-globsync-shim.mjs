// SPDX-License-Identifier: BSL-1.0
// Preload for Node 20 (`node --import ./fs-globsync-shim.mjs ...`): the conformance suite
// 0.1.16 imports `globSync` from "fs", which only Node 22 has. ESM named exports of builtins
// cannot be extended in place, so a loader hook hands importers of "fs" a module that
// re-exports node:fs plus a small globSync. Test tooling only; never part of a Candor binary.
import { register } from 'node:module';

register('./fs-globsync-hooks.mjs', import.meta.url);
