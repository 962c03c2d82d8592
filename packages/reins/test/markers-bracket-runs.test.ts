import { describe, expect, it } from 'vitest';
import { neutralizeMarkers, userInputBlock } from 'reins';

describe('input cleaning: runs of brackets (found in review)', () => {
  // Contract: template markers (`{{` `}}` …) get a zero-width space inside them, so "no template
  // engine ... sees the marker" (docs/runtime.md:320-326, user-input.ts:1-8). A triple mustache
  // (`{{{x}}}`, Handlebars' unescaped output) keeps a whole `{{` and `}}` after cleaning: the
  // replace resumes after the first pair, and the brace it split off pairs with the next one.
  it('leaves no `{{` or `}}` in a triple-mustache template', () => {
    const { text } = neutralizeMarkers('{{{constructor.constructor("return process")()}}}');
    expect(text).not.toContain('{{');
    expect(text).not.toContain('}}');
  });

  it('leaves no `{{` in the prompt block of a query with `{{{`', () => {
    expect(userInputBlock('show {{{secret}}} please').text).not.toMatch(/\{\{|\}\}/);
  });
});
