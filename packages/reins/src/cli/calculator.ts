import { ToolError } from '../errors.js';

/**
 * Evaluates + - * / ^ and parentheses over decimal numbers, by recursive descent — never
 * `eval`. Throws `ToolError('INVALID_PARAMETER')` on anything else.
 */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/^()]|\S/g) ?? [];
  let pos = 0;
  const fail = (why: string): never => {
    throw new ToolError('INVALID_PARAMETER', `cannot evaluate ${JSON.stringify(expression)}: ${why}`);
  };
  const peek = (): string | undefined => tokens[pos];
  const sum = (): number => {
    let value = product();
    while (peek() === '+' || peek() === '-')
      value = tokens[pos++] === '+' ? value + product() : value - product();
    return value;
  };
  const product = (): number => {
    let value = power();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[pos++];
      const right = power();
      if (op === '/' && right === 0) fail('division by zero');
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const power = (): number => {
    const base = unary();
    return peek() === '^' ? (pos++, base ** power()) : base;
  };
  const unary = (): number => (peek() === '-' ? (pos++, -unary()) : atom());
  const atom = (): number => {
    const token = tokens[pos++];
    if (token === '(') {
      const value = sum();
      if (tokens[pos++] !== ')') fail('missing )');
      return value;
    }
    if (token !== undefined && /^\d/.test(token)) return Number(token);
    return fail(token === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(token)}`);
  };
  const value = sum();
  if (pos < tokens.length) fail(`unexpected ${JSON.stringify(tokens[pos])}`);
  if (!Number.isFinite(value)) fail('result is not a finite number');
  return value;
}
