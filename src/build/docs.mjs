// `npm run docs`: regenerate the docs that are generated from code (docs/keys.md from the key
// map; the caps table of docs/agents.md from the failure-class rows).
// test/house/docs.test.ts fails when a generated doc and its source differ.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { renderKeysDoc } from '../../dist/src/ui/keys/keys-doc.js';
import { withCapsTable } from '../../dist/src/run/policy/caps-table.js';

mkdirSync('docs', { recursive: true });
writeFileSync('docs/keys.md', renderKeysDoc());
console.log('wrote docs/keys.md');
writeFileSync('docs/agents.md', withCapsTable(readFileSync('docs/agents.md', 'utf8')));
console.log('wrote the caps table of docs/agents.md');
