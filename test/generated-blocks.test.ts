// `npm run bench` replaces only the marked tables of docs/benchmarks.md (bench/support/generated-blocks.ts): the
// hand-written text around them survives a rerun, a block the file lacks is appended.
import { describe, expect, it } from 'vitest';
import { mergeGeneratedBlocks } from '../bench/support/generated-blocks.js';

const doc = [
  '# Benchmarks',
  '',
  'Hand-written intro.',
  '',
  '<!-- bench:study -->',
  '## Study',
  '| old | 1 |',
  '<!-- /bench:study -->',
  '',
  'Analysis of the study run, by hand.',
  '',
  '<!-- bench:ycsb -->',
  'old ycsb',
  '<!-- /bench:ycsb -->',
  '',
  'Closing notes.',
  '',
].join('\n');

describe('generated blocks of docs/benchmarks.md', () => {
  it('replaces each marked block and keeps the text around it', () => {
    const out = mergeGeneratedBlocks(doc, [
      { id: 'study', text: '## Study\n| new | 2 |' },
      { id: 'ycsb', text: 'new ycsb\n' },
    ]);
    expect(out).toContain('<!-- bench:study -->\n## Study\n| new | 2 |\n<!-- /bench:study -->');
    expect(out).toContain('<!-- bench:ycsb -->\nnew ycsb\n<!-- /bench:ycsb -->');
    expect(out).not.toContain('old');
    for (const hand of ['Hand-written intro.', 'Analysis of the study run, by hand.', 'Closing notes.']) {
      expect(out).toContain(hand);
    }
    // Same order as before: intro, study, analysis, ycsb, closing.
    const at = (s: string) => out.indexOf(s);
    expect(at('Hand-written intro.')).toBeLessThan(at('| new | 2 |'));
    expect(at('| new | 2 |')).toBeLessThan(at('Analysis of the study run'));
    expect(at('Analysis of the study run')).toBeLessThan(at('new ycsb'));
    expect(at('new ycsb')).toBeLessThan(at('Closing notes.'));
  });

  it('leaves blocks it was not given, and appends the ones the file lacks', () => {
    const out = mergeGeneratedBlocks(doc, [{ id: 'restart-time', text: '## Restart\nfast' }]);
    expect(out).toContain('| old | 1 |');
    expect(out).toContain('old ycsb');
    expect(out.trimEnd().endsWith('<!-- bench:restart-time -->\n## Restart\nfast\n<!-- /bench:restart-time -->')).toBe(
      true,
    );
    // Running it again replaces the appended block instead of appending another.
    const again = mergeGeneratedBlocks(out, [{ id: 'restart-time', text: '## Restart\nfaster' }]);
    expect(again.match(/<!-- bench:restart-time -->/g)).toHaveLength(1);
    expect(again).toContain('faster');
    expect(again).not.toContain('fast\n');
  });

  it('starts a new file from its title', () => {
    const out = mergeGeneratedBlocks('# Benchmarks\n', [{ id: 'generated', text: 'Generated on a day.' }]);
    expect(out).toBe('# Benchmarks\n\n<!-- bench:generated -->\nGenerated on a day.\n<!-- /bench:generated -->\n');
  });
});
