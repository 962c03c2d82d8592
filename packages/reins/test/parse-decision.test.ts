import { jsonrepair } from 'jsonrepair';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_PARSE_LIMITS,
  loadLazyParts,
  canonicalJson,
  parseDecision,
  parseStructured,
  type Decision,
  type ParseFailure,
  type ParseVia,
} from 'reins';

// The repair parsers load on first need; these tests call the parser directly, outside a run.
beforeAll(() => loadLazyParts());

const anyObject = z.record(z.string(), z.unknown());

function expectOk(raw: string, via: ParseVia, value: Decision): void {
  expect(parseDecision(raw)).toEqual({ ok: true, value, via, raw });
}

/** `via` is only reported when JSON was found and the schema rejected it. */
function expectFailure(raw: string, failure: ParseFailure, via?: ParseVia): string {
  const result = parseDecision(raw);
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.raw).toBe(raw);
  expect(result.failure).toBe(failure);
  expect(result.via).toBe(via);
  expect(result).not.toHaveProperty('value');
  expect(result.message).not.toBe('');
  return result.message;
}

const finalX: Decision = { kind: 'final', thought: 't', final: 'x' };
const search: Decision = { kind: 'action', thought: 't', action: 'search', input: { q: 'cats' } };

describe('parseDecision: clean JSON', () => {
  it('reads the three decision forms', () => {
    expectOk('{"thought":"t","action":"search","input":{"q":"cats"}}', 'clean', search);
    expectOk('{"thought":"t","final":"x"}', 'clean', finalX);
    expectOk('{"thought":"t","ask":"Which city?"}', 'clean', {
      kind: 'ask',
      thought: 't',
      ask: 'Which city?',
    });
  });

  it('accepts action_input as the spelling of input', () => {
    expectOk('{"thought":"t","action":"search","action_input":{"q":"cats"}}', 'clean', search);
  });

  it('defaults a missing thought to "" and a missing input to {}', () => {
    expectOk('{"final":"x"}', 'clean', { kind: 'final', thought: '', final: 'x' });
    expectOk('{"action":"now"}', 'clean', { kind: 'action', thought: '', action: 'now', input: {} });
  });

  it('trims the tool name but keeps the input exactly as written', () => {
    expectOk('{"thought":"t","action":"  search ","input":{" q ":[1,{"n":null}," x "]}}', 'clean', {
      kind: 'action',
      thought: 't',
      action: 'search',
      input: { ' q ': [1, { n: null }, ' x '] },
    });
  });

  it('drops a "__proto__" key from input (zod skips it) without touching the prototype', () => {
    const parsed = parseDecision('{"action":"t","input":{"__proto__":{"polluted":1},"y":2}}');
    expect(parsed).toMatchObject({ ok: true, via: 'clean' });
    if (!parsed.ok || parsed.value.kind !== 'action') throw new Error('expected an action');
    expect(parsed.value.input).toEqual({ y: 2 });
    expect(Object.keys(parsed.value.input)).toEqual(['y']);
    expect(Object.getPrototypeOf(parsed.value.input)).toBe(Object.prototype);
    expect((parsed.value.input as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops unknown top-level keys', () => {
    expectOk('{"thought":"t","final":"x","confidence":0.9}', 'clean', finalX);
  });

  it('treats surrounding whitespace as clean', () => {
    expectOk('\n  {"thought":"t","final":"x"}  \n', 'clean', finalX);
  });
});

describe('parseDecision: extraction', () => {
  it('finds the object after prose', () => {
    expectOk('Sure! Here is my decision: {"thought":"t","final":"x"}', 'extracted', finalX);
  });

  it('finds the object before prose', () => {
    expectOk('{"thought":"t","final":"x"}\nHope this helps!', 'extracted', finalX);
  });

  it('finds the object between prose', () => {
    expectOk(
      'Thinking...\n{"thought":"t","action":"search","input":{"q":"cats"}}\nDone.',
      'extracted',
      search,
    );
  });

  it('reads a ```json code fence with prose around it', () => {
    expectOk('Here you go:\n```json\n{"thought":"t","final":"x"}\n```\nLet me know.', 'extracted', finalX);
  });

  it('reads a code fence without a language', () => {
    expectOk('```\n{"thought":"t","final":"x"}\n```', 'extracted', finalX);
  });

  it('reads a one-line fence', () => {
    expectOk('```{"thought":"t","final":"x"}```', 'extracted', finalX);
  });

  it('skips a first balanced {...} that is not JSON and takes a later one that is', () => {
    expectOk(
      'I will call {the search tool} with {q}: {"thought":"t","action":"search","input":{"q":"cats"}}',
      'extracted',
      search,
    );
  });

  it('does not end an object at a brace inside a string', () => {
    expectOk('Note: {"thought":"}{","final":"a } b"} ok', 'extracted', {
      kind: 'final',
      thought: '}{',
      final: 'a } b',
    });
  });

  it('prefers a fenced object over a balanced one in the prose before it', () => {
    expectOk('Format: {"final": "..."}\n```json\n{"thought":"t","final":"x"}\n```', 'extracted', finalX);
  });
});

describe('parseDecision: exactly one repair', () => {
  it('repairs single quotes', () => {
    expectOk("{'thought':'t','action':'search','input':{'q':'cats'}}", 'repaired', search);
  });

  it('repairs single quotes with an escaped apostrophe and a double quote inside', () => {
    expectOk("{'thought':'t','final':'it\\'s \"x\"'}", 'repaired', {
      kind: 'final',
      thought: 't',
      final: 'it\'s "x"',
    });
  });

  it('repairs trailing commas', () => {
    expectOk('{"thought":"t","action":"search","input":{"q":"cats",},}', 'repaired', search);
    expectOk('{"thought":"t","action":"sum","input":{"xs":[1,2,],},}', 'repaired', {
      kind: 'action',
      thought: 't',
      action: 'sum',
      input: { xs: [1, 2] },
    });
  });

  it('repairs // line comments', () => {
    expectOk('{\n  // my reasoning\n  "thought": "t", // short\n  "final": "x"\n}', 'repaired', finalX);
  });

  it('repairs /* block */ comments', () => {
    expectOk('{"thought":"t", /* the answer: */ "final":"x" /* end */}', 'repaired', finalX);
  });

  it('repairs Python True / False / None', () => {
    expectOk(
      '{"thought":"t","action":"filter","input":{"vegan":True,"spicy":False,"limit":None}}',
      'repaired',
      { kind: 'action', thought: 't', action: 'filter', input: { vegan: true, spicy: false, limit: null } },
    );
  });

  it('repairs truncated output: missing closing brace', () => {
    expectOk('{"thought":"t","final":"x"', 'repaired', finalX);
  });

  it('repairs truncated output: missing closing quote and brace', () => {
    expectOk('{"thought":"t","final":"the answer is 4', 'repaired', {
      kind: 'final',
      thought: 't',
      final: 'the answer is 4',
    });
  });

  it('repairs truncated output: nested input missing both closing braces', () => {
    expectOk('{"thought":"t","action":"search","input":{"q":"cats"', 'repaired', search);
  });

  it('repairs truncated output after prose', () => {
    expectOk('Okay. {"thought":"t","action":"search","input":{"q":"cats', 'repaired', search);
  });

  it('repairs unquoted keys', () => {
    expectOk('{thought:"t",action:"search",input:{q:"cats"}}', 'repaired', search);
  });

  it('repairs a raw newline inside a string', () => {
    expectOk('{"thought":"t","final":"line 1\nline 2"}', 'repaired', {
      kind: 'final',
      thought: 't',
      final: 'line 1\nline 2',
    });
  });

  it('repairs inside a code fence with prose around it', () => {
    expectOk("I'd say:\n```json\n{'thought':'t','final':'x',}\n```\nThanks!", 'repaired', finalX);
  });

  it('repairs an unclosed object inside a closed fence', () => {
    expectOk('```json\n{"thought":"t","final":"x"\n```', 'repaired', finalX);
  });
});

describe('parseDecision: failures keep the raw text', () => {
  it('plain prose is no_json', () => {
    expectFailure('I think the answer is 42.', 'no_json');
  });

  it('empty and whitespace-only replies are empty', () => {
    expectFailure('', 'empty');
    expectFailure('   ', 'empty');
    expectFailure('\n\t \r\n', 'empty');
  });

  it('a top-level array is not_an_object, even when it holds a decision', () => {
    expectFailure('[{"final":"x"}]', 'not_an_object');
    expect(expectFailure('[{"thought":"t","final":"x"}]', 'not_an_object')).toMatch(/array/);
  });

  it('a JSON string, number or null is not_an_object', () => {
    expect(expectFailure('"final"', 'not_an_object')).toMatch(/string/);
    expect(expectFailure('42', 'not_an_object')).toMatch(/number/);
    expect(expectFailure('null', 'not_an_object')).toMatch(/null/);
  });

  it('an object without action, final or ask fails the schema', () => {
    expect(expectFailure('{"thought":"x"}', 'schema', 'clean')).toMatch(
      /one of "action", "actions", "final" or "ask"/,
    );
  });

  it('both action and final fail the schema', () => {
    expect(expectFailure('{"thought":"x","action":"search","final":"y"}', 'schema', 'clean')).toMatch(
      /exactly one/,
    );
    expectFailure('{"final":"y","ask":"z"}', 'schema', 'clean');
  });

  it('a blank final, ask or action fails the schema', () => {
    expect(expectFailure('{"thought":"x","final":"   "}', 'schema', 'clean')).toMatch(
      /final: must not be blank/,
    );
    expectFailure('{"thought":"x","final":""}', 'schema', 'clean');
    expectFailure('{"ask":"\\n"}', 'schema', 'clean');
    expectFailure('{"action":" "}', 'schema', 'clean');
  });

  it('input and action_input together fail the schema', () => {
    expectFailure('{"action":"search","input":{"q":1},"action_input":{"q":2}}', 'schema', 'clean');
  });

  it('wrong types fail the schema', () => {
    expectFailure('{"final":42}', 'schema', 'clean');
    expectFailure('{"action":"search","input":["cats"]}', 'schema', 'clean');
    expectFailure('{"action":"search","input":"cats"}', 'schema', 'clean');
  });

  it('null counts as absent (models write "input": null), so these are valid decisions', () => {
    expect(parseDecision('{"thought":null,"final":"x"}')).toMatchObject({
      ok: true,
      value: { kind: 'final', thought: '', final: 'x' },
    });
    expect(parseDecision('{"action":"search","input":null,"final":null}')).toMatchObject({
      ok: true,
      value: { kind: 'action', action: 'search', input: {} },
    });
    expectFailure('{"action":null,"final":null}', 'schema', 'clean');
  });

  it('reports how the JSON was found when the schema fails', () => {
    expectFailure('Answer: {"thought":"x"}', 'schema', 'extracted');
    expectFailure("{'thought':'x'}", 'schema', 'repaired');
  });

  it('an object that cannot be repaired is invalid_json', () => {
    expectFailure('{{"final":"x"}}', 'invalid_json');
    expectFailure('The set {a, b} is empty.', 'invalid_json');
  });

  it('input longer than 100_000 characters is too_large, even if valid', () => {
    const body = '{"final":""}';
    const exact = `{"final":"${'x'.repeat(DEFAULT_PARSE_LIMITS.maxChars - body.length)}"}`;
    expect(exact).toHaveLength(100_000);
    expect(parseDecision(exact)).toMatchObject({ ok: true, via: 'clean' });

    const over = `{"final":"${'x'.repeat(DEFAULT_PARSE_LIMITS.maxChars - body.length + 1)}"}`;
    expect(over).toHaveLength(100_001);
    expectFailure(over, 'too_large');
    expectFailure(' '.repeat(100_001) + '{"final":"x"}', 'too_large');
  });

  it('a repair candidate longer than maxRepairChars is too_large', () => {
    expect(DEFAULT_PARSE_LIMITS.maxRepairChars).toBe(32_000);
    const over = `{'final':'${'x'.repeat(32_000)}'}`;
    expect(expectFailure(over, 'too_large')).toMatch(/candidate longer than 32000/);
  });

  it('nesting deeper than 32 is too_deep; 32 is accepted', () => {
    expect(DEFAULT_PARSE_LIMITS.maxDepth).toBe(32);
    const at = (n: number): string => `{"final":"x","a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    expect(parseDecision(at(32))).toMatchObject({ ok: true, via: 'clean' });
    expectFailure(at(33), 'too_deep');
    const objects = `{"action":"t","input":${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`;
    expectFailure(objects, 'too_deep');
  });

  it('caps depth before repairing, so a deep unrepairable text is too_deep, not invalid_json', () => {
    expectFailure(`{'final':'x', 'a': ${'['.repeat(5_000)}`, 'too_deep');
  });

  it('honours custom limits', () => {
    const limits = { maxChars: 20, maxRepairChars: 10, maxDepth: 1 };
    expect(parseDecision('{"final":"x","a":[]}', limits)).toMatchObject({ ok: false, failure: 'too_deep' });
    expect(parseDecision('{"final":"xxxxxxxxxxxxxxx"}', limits)).toMatchObject({
      ok: false,
      failure: 'too_large',
    });
    expect(parseDecision("{'final':'xxx'}", limits)).toMatchObject({ ok: false, failure: 'too_large' });
    expect(parseDecision('{"final":"x"}', limits)).toMatchObject({ ok: true, via: 'clean' });
  });
});

describe('parseDecision: repair never changes the shape', () => {
  it('two concatenated objects that jsonrepair would wrap in an array are not_an_object', () => {
    expect(jsonrepair('{"final":"x"\n{"final":"y"}')).toMatch(/^\[/);
    expect(expectFailure('{"final":"x"\n{"final":"y"}', 'not_an_object')).toMatch(/array/);
  });

  it('a fence whose content is an object plus prose does not succeed as an array', () => {
    const raw = '```json\n{"thought":"t","final":"x",}\nThat is my final answer.\n```';
    expect(jsonrepair('{"thought":"t","final":"x",}\nThat is my final answer.')).toMatch(/^\[/);
    expect(expectFailure(raw, 'not_an_object')).toMatch(/array/);
  });

  it('a fenced array that needs repair is not_an_object', () => {
    expectFailure("```json\n[{'final':'x'}]\n```", 'not_an_object');
  });
});

describe('regression: jsonrepair 3.14.1 / 3.15.0 reject the valid JSON {"a":"{"} (3.13.2 is pinned)', () => {
  it('the pinned jsonrepair accepts it unchanged', () => {
    expect(jsonrepair('{"a":"{"}')).toBe('{"a":"{"}');
  });

  it('a decision of lone braces parses clean', () => {
    expectOk('{"thought":"{","final":"{"}', 'clean', { kind: 'final', thought: '{', final: '{' });
  });

  it('a decision of lone braces survives the jsonrepair step', () => {
    // None makes JSON5 fail, so this reaches jsonrepair; 3.14.1 throws on the final `"{"}`.
    expectOk('{"thought":"{","done":None,"final":"{"}', 'repaired', {
      kind: 'final',
      thought: '{',
      final: '{',
    });
  });

  it('parseStructured with a permissive schema', () => {
    const raw = '{"a":"{"}';
    expect(parseStructured(raw, anyObject)).toEqual({ ok: true, value: { a: '{' }, via: 'clean', raw });
    const repaired = '{"b":None,"a":"{"}';
    expect(parseStructured(repaired, anyObject)).toEqual({
      ok: true,
      value: { b: null, a: '{' },
      via: 'repaired',
      raw: repaired,
    });
  });
});

describe('regression: an unmatched quote in prose hid the nesting from the depth cap', () => {
  const deepInput = (n: number): string => `{"b":${'['.repeat(n)}${']'.repeat(n)}}`;

  it('a stray " before the JSON no longer lets 40-deep input through', () => {
    expectFailure(`He said "hi. {"thought":"t","action":"a","input":${deepInput(40)}}`, 'too_deep');
  });

  it('a " inside a single-quoted string no longer lets 40-deep input through the repair', () => {
    expectFailure(
      `{'thought':'say "hi','action':'a','input':${deepInput(40).replace('"b"', "'b'")}}`,
      'too_deep',
    );
  });

  it('20k-deep input behind a stray quote is too_deep instead of crashing canonicalJson later', () => {
    const raw = `"{"thought":"t","action":"a","input":${deepInput(20_000)}}`;
    expectFailure(raw, 'too_deep');
  });

  it('a stray quote with shallow JSON still parses', () => {
    expectOk('He said "hi. {"thought":"t","action":"search","input":{"q":"cats"}}', 'extracted', search);
    const parsed = parseDecision('He said "hi. {"thought":"t","action":"a","input":{"b":[[1]]}}');
    expect(parsed.ok && parsed.value.kind === 'action' && canonicalJson(parsed.value.input)).toBe(
      '{"b":[[1]]}',
    );
  });
});

describe('regression: a ``` inside a string value cut the fenced JSON short and repair dropped the rest', () => {
  it('keeps a code block inside a single-quoted final', () => {
    const raw = "```json\n{'thought':'t','final':'Run:\\n```sh\\nls -la\\n```\\nDone.'}\n```";
    expectOk(raw, 'repaired', { kind: 'final', thought: 't', final: 'Run:\n```sh\nls -la\n```\nDone.' });
  });

  it('keeps a code block inside a final with a trailing comma', () => {
    const raw = 'Answer:\n```json\n{"thought":"t","final":"Use:\\n```py\\nprint(1)\\n```",}\n```\nBye.';
    expectOk(raw, 'repaired', { kind: 'final', thought: 't', final: 'Use:\n```py\nprint(1)\n```' });
  });

  it('valid JSON with a code block in final was and is extracted whole', () => {
    const raw = '```json\n{"thought":"t","final":"Use:\\n```py\\nprint(1)\\n```"}\n```';
    expectOk(raw, 'extracted', { kind: 'final', thought: 't', final: 'Use:\n```py\nprint(1)\n```' });
  });
});

describe('totality on ~30 KB adversarial inputs (no timing assertions)', () => {
  const failures: Array<[name: string, raw: string, failure: ParseFailure]> = [
    ['unclosed braces and quotes', '{"a":"'.repeat(5_000), 'too_deep'],
    ['open brackets', `{"a":${'[[[[[[[[,'.repeat(3_400)}`, 'too_deep'],
    ['fences and braces', '```json\n{'.repeat(3_500), 'too_deep'],
    ['alternating quote styles', `{${`'"`.repeat(15_000)}`, 'schema'],
    ['many small objects with trailing commas', '{a:1,},'.repeat(4_300), 'schema'],
    ['unterminated strings in an array', `{"a":[${'"x,'.repeat(10_000)}]}`, 'schema'],
    ['comment openers', `{"a":1 ${'/*'.repeat(15_000)}`, 'invalid_json'],
    ['keys without values', `{${'"k":'.repeat(7_500)}`, 'invalid_json'],
  ];

  for (const [name, raw, failure] of failures) {
    it(`${name} → ${failure}`, () => {
      expect(raw.length).toBeGreaterThanOrEqual(30_000);
      expectFailure(raw, failure, failure === 'schema' ? 'repaired' : undefined);
    });
  }

  it('30 KB of backslashes in an unterminated string is repaired', () => {
    const raw = `{"final":"${'\\'.repeat(30_000)}`;
    expectOk(raw, 'repaired', { kind: 'final', thought: '', final: '\\'.repeat(15_000) });
  });

  it('Python literals without commas in a 30 KB array are repaired', () => {
    const raw = `{"final":"x","a":[${'True None '.repeat(3_000)}]}`;
    expectOk(raw, 'repaired', { kind: 'final', thought: '', final: 'x' });
  });

  it('a candidate just under maxRepairChars is repaired', () => {
    const raw = `{'final':'${'\\"'.repeat(15_990)}'`;
    expect(raw.length).toBeLessThan(DEFAULT_PARSE_LIMITS.maxRepairChars);
    expectOk(raw, 'repaired', { kind: 'final', thought: '', final: '"'.repeat(15_990) });
  });
});
