import { describe, expect, it } from 'vitest';
import { mergeText } from '../../src/worktree/index.js';

const merge = (ours: string, base: string, theirs: string, strategy?: 'ours' | 'theirs' | 'markers') =>
  mergeText({
    ours: Buffer.from(ours),
    base: Buffer.from(base),
    theirs: Buffer.from(theirs),
    strategy,
    theirsLabel: 'worktree t',
  });

describe('mergeText', () => {
  it('merges edits to different lines cleanly', () => {
    const result = merge('A\nb\nc\nd\n', 'a\nb\nc\nd\n', 'a\nb\nc\nD\n');
    expect(result.hunks).toEqual([]);
    expect(result.bytes.toString()).toBe('A\nb\nc\nD\n');
  });

  it('an identical change on both sides is not a conflict', () => {
    const result = merge('a\nX\nc\n', 'a\nb\nc\n', 'a\nX\nc\n');
    expect(result.hunks).toEqual([]);
    expect(result.bytes.toString()).toBe('a\nX\nc\n');
  });

  it("reports overlapping edits as hunks with the 1-based line in the user's file", () => {
    const result = merge('a\nb\nOURS\nd\n', 'a\nb\nc\nd\n', 'a\nb\nTHEIRS\nd\n');
    expect(result.hunks).toEqual([{ oursLine: 3, ours: 'OURS\n', base: 'c\n', theirs: 'THEIRS\n' }]);
    expect(merge('a\nb\nOURS\nd\n', 'a\nb\nc\nd\n', 'a\nb\nTHEIRS\nd\n', 'ours').bytes.toString()).toBe(
      'a\nb\nOURS\nd\n',
    );
    expect(merge('a\nb\nOURS\nd\n', 'a\nb\nc\nd\n', 'a\nb\nTHEIRS\nd\n', 'theirs').bytes.toString()).toBe(
      'a\nb\nTHEIRS\nd\n',
    );
  });

  it("markers use the file's CRLF line ending and survive a missing final newline", () => {
    const result = merge('a\r\nOURS', 'a\r\nb', 'a\r\nTHEIRS', 'markers');
    expect(result.bytes.toString()).toBe(
      'a\r\n<<<<<<< ours (your folder)\r\nOURS\r\n=======\r\nTHEIRS\r\n>>>>>>> theirs (worktree t)\r\n',
    );
  });

  it('keeps bytes that are not valid UTF-8 and a missing final newline', () => {
    const ours = Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x63]);
    const base = Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x62]);
    const theirs = Buffer.from([0x41, 0x0a, 0xff, 0xfe, 0x0a, 0x62]);
    const result = mergeText({ ours, base, theirs, strategy: undefined });
    expect(result.hunks).toEqual([]);
    expect(result.bytes).toEqual(Buffer.from([0x41, 0x0a, 0xff, 0xfe, 0x0a, 0x63]));
  });

  it('both sides adding a file (empty base) with different text conflicts', () => {
    const result = merge('mine\n', '', 'yours\n');
    expect(result.hunks).toEqual([{ oursLine: 1, ours: 'mine\n', base: '', theirs: 'yours\n' }]);
  });
});
