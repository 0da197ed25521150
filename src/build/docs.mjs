// `npm run docs`: regenerate the docs that are generated from code (docs/keys.md from the key
// map). test/docs.test.ts fails when a generated doc and its source differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { renderKeysDoc } from '../../dist/src/app/keys-doc.js';

mkdirSync('docs', { recursive: true });
writeFileSync('docs/keys.md', renderKeysDoc());
console.log('wrote docs/keys.md');
