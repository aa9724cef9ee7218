// The -f / -F fields of agctl api: keys (gh's a[b], a[], a[][k]), typed values,
// and their query-string form.
import { describe, expect, it } from 'vitest';
import { buildFields, parseKey, queryPairs, typedValue, type ReadSource } from '../../../src/cli/commands/api/fields.js';
import { UsageError } from '../../../src/lib/exit.js';

const noFiles: ReadSource = async (source) => {
  throw new Error(`unexpected read of ${source}`);
};
const fields = (raw: string[], typed: string[] = [], read = noFiles) => buildFields(raw, typed, read);

describe('parseKey', () => {
  it('splits names, members and appends', () => {
    expect(parseKey('a', '-f')).toEqual(['a']);
    expect(parseKey('a[b][c]', '-f')).toEqual(['a', 'b', 'c']);
    expect(parseKey('a[][k]', '-f')).toEqual(['a', null, 'k']);
    expect(parseKey('a.b', '-f')).toEqual(['a.b']);
  });

  it('refuses what is not a key', () => {
    for (const k of ['', '[a]', 'a[b', 'a]b', 'a[b]c', 'a[[b]]']) expect(() => parseKey(k, '-f'), k).toThrow(UsageError);
  });
});

describe('typedValue', () => {
  it('reads booleans, null and numbers; everything else stays text', () => {
    expect(typedValue('true')).toBe(true);
    expect(typedValue('false')).toBe(false);
    expect(typedValue('null')).toBe(null);
    expect(typedValue('42')).toBe(42);
    expect(typedValue('-7')).toBe(-7);
    expect(typedValue('0.5')).toBe(0.5);
    expect(typedValue('1e3')).toBe(1000);
    for (const s of ['True', 'NULL', '007', '1.', '.5', '0x10', '12abc', '', ' 1', 'Infinity', 'NaN']) expect(typedValue(s), s).toBe(s);
  });

  it('keeps integers beyond 2^53 as text rather than change them', () => {
    expect(typedValue('9007199254740993')).toBe('9007199254740993');
    expect(typedValue('9007199254740991')).toBe(9007199254740991);
  });
});

describe('buildFields', () => {
  it('-f is always a string, -F typed', async () => {
    expect(await fields(['n=1', 'b=true'], ['m=1', 'c=true', 'z=null', 's=text'])).toEqual({
      n: '1',
      b: 'true',
      m: 1,
      c: true,
      z: null,
      s: 'text',
    });
  });

  it('a value may hold "=" and be empty', async () => {
    expect(await fields(['q=a=b', 'e='])).toEqual({ q: 'a=b', e: '' });
  });

  it('nests objects and arrays like gh', async () => {
    expect(await fields(['a[b]=1', 'a[c][d]=2', 'l[]=x', 'l[]=y'])).toEqual({ a: { b: '1', c: { d: '2' } }, l: ['x', 'y'] });
    // a[][k] fills the last object until it already has k, then starts a new one.
    expect(await fields(['p[][name]=a', 'p[][age]=1', 'p[][name]=b'])).toEqual({ p: [{ name: 'a', age: '1' }, { name: 'b' }] });
    expect(await fields(['m[][]=1', 'm[][]=2'])).toEqual({ m: [['1'], ['2']] });
  });

  it('key[] without a value is an empty array; a key without one otherwise is refused', async () => {
    expect(await fields(['list[]'])).toEqual({ list: [] });
    expect(await fields(['o[list][]'])).toEqual({ o: { list: [] } });
    await expect(fields(['novalue'])).rejects.toThrow(/-f novalue: expected key=value/);
  });

  it('a later value replaces an earlier one; -F comes after -f', async () => {
    expect(await fields(['a=1', 'a=2'])).toEqual({ a: '2' });
    expect(await fields(['a=text'], ['a=3'])).toEqual({ a: 3 });
  });

  it('refuses a key used as two kinds', async () => {
    await expect(fields(['a=1', 'a[b]=2'])).rejects.toThrow(/"a" is already a string, not an object/);
    await expect(fields(['a[b]=1', 'a=2'])).rejects.toThrow(/"a" is already an object/);
    await expect(fields(['a[]=1', 'a[b]=2'])).rejects.toThrow(/"a" is already an array, not an object/);
    await expect(fields(['a[b]=1', 'a[]=2'])).rejects.toThrow(/"a" is already an object, not an array/);
  });

  it('a key like __proto__ is a plain member', async () => {
    const f = await fields(['__proto__[x]=1', 'constructor=2']);
    expect(JSON.stringify(f)).toBe('{"__proto__":{"x":"1"},"constructor":"2"}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('-F key=@source reads the source (the text, untyped); -f key=@x is the text "@x"', async () => {
    const reads: [string, string][] = [];
    const read = async (source: string, field: string) => {
      reads.push([source, field]);
      return source === '-' ? 'from stdin' : '42';
    };
    expect(await fields(['raw=@x'], ['file=@n.txt', 'in=@-'], read)).toEqual({ raw: '@x', file: '42', in: 'from stdin' });
    expect(reads).toEqual([
      ['n.txt', '-F file'],
      ['-', '-F in'],
    ]);
  });
});

describe('queryPairs', () => {
  it('writes nested members as a.b and repeats the key for array items', () => {
    expect(queryPairs({ q: 'x', n: 2, b: false, z: null, mask: { paths: ['a', 'b'] }, l: [{ k: 1 }, { k: 2 }] })).toEqual([
      ['q', 'x'],
      ['n', '2'],
      ['b', 'false'],
      ['z', ''],
      ['mask.paths', 'a'],
      ['mask.paths', 'b'],
      ['l.k', '1'],
      ['l.k', '2'],
    ]);
  });
});
