// `npm run bench` writes its tables into docs/benchmarks.md between markers, one pair per table
// (`<!-- bench:ID -->` ... `<!-- /bench:ID -->`), and leaves everything else in the file as it is: the file also
// holds hand-written measurements and analysis, which a rerun of the suite must not erase.

export interface GeneratedBlock {
  id: string;
  text: string;
}

const begin = (id: string): string => `<!-- bench:${id} -->`;
const end = (id: string): string => `<!-- /bench:${id} -->`;

function render(b: GeneratedBlock): string {
  return `${begin(b.id)}\n${b.text.trim()}\n${end(b.id)}`;
}

/** `doc` with each block's marked span replaced by its new text; blocks `doc` lacks are appended, in order. */
export function mergeGeneratedBlocks(doc: string, blocks: readonly GeneratedBlock[]): string {
  const missing: GeneratedBlock[] = [];
  for (const b of blocks) {
    const from = doc.indexOf(begin(b.id));
    const to = from < 0 ? -1 : doc.indexOf(end(b.id), from);
    if (to < 0) {
      missing.push(b);
      continue;
    }
    doc = doc.slice(0, from) + render(b) + doc.slice(to + end(b.id).length);
  }
  if (missing.length === 0) return doc;
  return `${doc.trimEnd()}\n\n${missing.map(render).join('\n\n')}\n`;
}
