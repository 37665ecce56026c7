import { describe, expect, it } from 'vitest';
import { suffixedName, tempPathFor } from 'fed/testing';
import {
  nameHint,
  ackFileName,
  compactTimestamp,
  EMPTY_SUBJECT_SLUG,
  isAckFileName,
  isSignalFileName,
  MAX_SUBJECT_SLUG_LENGTH,
  sameSubjectPattern,
  signalFileName,
  signalTypeOfName,
  subjectSlug,
} from '../../../src/adapters/file/signals/signal-file-name.js';

describe('signal file names (docs/design/spec.md §4.2)', () => {
  it('is <YYYY-MM-DDTHHMMSSZ>-<type>-<kebab-subject>.json in UTC without colons', () => {
    const name = signalFileName({
      timestamp: '2026-01-31T12:04:05.987Z',
      type: 'directive',
      subject: 'Write the Architecture Doc',
    });
    expect(name).toBe('2026-01-31T120405Z-directive-write-the-architecture-doc.json');
    expect(name).toMatch(/^\d{4}-\d{2}-\d{2}T\d{6}Z-directive-[a-z0-9-]+\.json$/);
  });

  it('converts timestamps with an offset to UTC', () => {
    expect(compactTimestamp('2026-01-31T13:04:05+01:00')).toBe('2026-01-31T120405Z');
    expect(compactTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T030405Z');
  });

  it('kebab-cases subjects: lowercase ASCII letters and digits, other runs become one hyphen, trimmed', () => {
    expect(subjectSlug('Fix  login -- NOW!')).toBe('fix-login-now');
    expect(subjectSlug('  v2.0 release_notes  ')).toBe('v2-0-release-notes');
    expect(subjectSlug('Café crème für Ärzte')).toBe('cafe-creme-fur-arzte');
  });

  it('slugs an ASCII subject as the Unicode folding would: every ASCII character, alone and among letters', () => {
    // The folding path, on a subject that is not ASCII only: a trailing "é" folds to "e" and is cut off again.
    const folded = (subject: string) => subjectSlug(`${subject} é`).replace(/-?e$/, '');
    for (let code = 0; code < 128; code++) {
      const character = String.fromCharCode(code);
      for (const subject of [character, `Ab${character}9z`, `${character}${character}Q`])
        expect(subjectSlug(subject), JSON.stringify(subject)).toBe(folded(subject) || EMPTY_SUBJECT_SLUG);
    }
  });

  it('drops marks only where that may change the slug, and slugs every character as if it always did', () => {
    expect(subjectSlug('Re\u0301sume\u0301 ready')).toBe('resume-ready');
    expect(subjectSlug('preparing → scanning')).toBe('preparing-scanning');
    // The slug with every mark dropped, as it was before marks were tested for.
    const dropped = (subject: string) => {
      const slug = subject
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .slice(0, MAX_SUBJECT_SLUG_LENGTH)
        .replace(/^-+|-+$/g, '');
      return slug === '' ? EMPTY_SUBJECT_SLUG : slug;
    };
    const capped = 'a'.repeat(MAX_SUBJECT_SLUG_LENGTH - 1);
    for (let code = 0x80; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCharCode(code);
      // Between letters, first, last, after a space, before a mark, and where a mark ahead would take a place of the cap.
      for (const subject of [`x${c}y`, `${c}y`, `x ${c}`, `x${c}\u0301y`, `\u0301${c}z`, `${c}${capped}bb`])
        if (subjectSlug(subject) !== dropped(subject))
          expect(subjectSlug(subject), JSON.stringify(subject)).toBe(dropped(subject));
    }
  });

  it.each([
    ['path traversal', '../../../etc/passwd', 'etc-passwd'],
    ['absolute path', '/root/.ssh/id_rsa', 'root-ssh-id-rsa'],
    ['backslashes', '..\\..\\windows\\system32', 'windows-system32'],
    ['control characters', 'a\u0000b\nc\r\u001b[31md\u007f', 'a-b-c-31md'],
    ['only emoji', '🚀🔥✨', EMPTY_SUBJECT_SLUG],
    ['only punctuation', '../..', EMPTY_SUBJECT_SLUG],
    ['another script', '日本語の件名', EMPTY_SUBJECT_SLUG],
    ['empty', '', EMPTY_SUBJECT_SLUG],
    ['emoji around words', '🚀 Launch 🔥 day', 'launch-day'],
  ])('never lets a subject shape the path: %s', (_what, subject, slug) => {
    expect(subjectSlug(subject)).toBe(slug);
    const name = signalFileName({ timestamp: '2026-01-31T12:00:00Z', type: 'alert', subject });
    expect(name).not.toMatch(/[/\\\0]/);
    expect(name.startsWith('.')).toBe(false);
    expect(name).toMatch(/^[A-Za-z0-9-]+\.json$/);
  });

  it('caps very long subjects so every derived name stays far below 255 bytes', () => {
    const subject = 'word '.repeat(2_000); // 10 000 characters
    const slug = subjectSlug(subject);
    expect(slug.length).toBeLessThanOrEqual(MAX_SUBJECT_SLUG_LENGTH);
    expect(slug.endsWith('-')).toBe(false);
    const name = signalFileName({ timestamp: '2026-01-31T12:00:00Z', type: 'directive', subject });
    const longest = [
      ackFileName(suffixedName(name, 99_999)),
      tempPathFor(`/x/${ackFileName(suffixedName(name, 99_999))}`).slice(3),
    ];
    for (const derived of longest) expect(Buffer.byteLength(derived)).toBeLessThan(200);
  });

  it('names the ack file <signal-file>.json.ack and tells signal, ack and temp files apart', () => {
    const name = '2026-01-31T120000Z-report-x.json';
    expect(ackFileName(name)).toBe('2026-01-31T120000Z-report-x.json.ack');
    expect(isSignalFileName(name)).toBe(true);
    expect(isSignalFileName(ackFileName(name))).toBe(false);
    expect(isAckFileName(ackFileName(name))).toBe(true);
    expect(isAckFileName(name)).toBe(false);
    expect(isSignalFileName(`.${name}.123.abcdef.tmp`)).toBe(false);
    expect(isSignalFileName('.hidden.json')).toBe(false);
    expect(isSignalFileName('notes.txt')).toBe(false);
  });

  it('matches every name a retried send of the same type and subject can have, and no other', () => {
    const pattern = sameSubjectPattern('report', 'Status: done');
    expect(pattern.test('2026-01-31T120000Z-report-status-done.json')).toBe(true);
    expect(pattern.test('2027-02-01T000001Z-report-status-done-17.json')).toBe(true);
    expect(pattern.test('2026-01-31T120000Z-alert-status-done.json')).toBe(false);
    expect(pattern.test('2026-01-31T120000Z-report-status-done-now.json')).toBe(false);
    expect(pattern.test('2026-01-31T120000Z-report-status-done.json.ack')).toBe(false);
  });

  it('reads the second and type back from a fed-made name, and nothing from another name', () => {
    const name = signalFileName({ timestamp: '2026-01-31T12:04:05.987Z', type: 'question', subject: 'Which?' });
    expect(nameHint(name)).toEqual({ time: Date.parse('2026-01-31T12:04:05Z'), type: 'question' });
    expect(nameHint(suffixedName(name, 3))).toEqual({ time: Date.parse('2026-01-31T12:04:05Z'), type: 'question' });
    expect(nameHint('2026-01-31T120405Z-memo-x.json')).toBeUndefined();
    expect(nameHint('from-another-tool.json')).toBeUndefined();
  });

  it('reads the type alone exactly as nameHint reads it, from every kind of name', () => {
    const times = [
      '2026-01-31T120405Z',
      '2026-1-31T120405Z',
      '2026-01-31T12045Z',
      '2026-01-31t120405Z',
      '２026-01-31T120405Z',
    ];
    const rests = [
      'question-x.json',
      'report-',
      'alert-a-b.json.ack',
      'directive',
      'reports-x.json',
      'repor-x.json',
      'Report-x.json',
      'memo-x.json',
      '-report-x.json',
      'report_x.json',
      '',
    ];
    const names = times.flatMap((time) =>
      rests.flatMap((rest) => [`${time}-${rest}`, `${time}${rest}`, `.${time}-${rest}`]),
    );
    expect(names.filter((name) => signalTypeOfName(name) !== undefined).length).toBeGreaterThan(3);
    for (const name of names) expect(signalTypeOfName(name), name).toBe(nameHint(name)?.type);
  });
});
