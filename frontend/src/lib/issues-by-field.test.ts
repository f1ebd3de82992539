import { describe, expect, it } from 'vitest';

import { issuesByField } from './issues-by-field';

describe('issuesByField', () => {
  const issues = [
    { path: ['start'], message: 'Too early.' },
    { path: ['end', 0], message: 'Too late.' },
    { path: ['start'], message: 'Not a number.' },
    { path: [], message: 'Whole form.' },
  ];

  it('groups the messages by the first key of their path, in order', () => {
    expect(issuesByField(issues)).toEqual({
      start: ['Too early.', 'Not a number.'],
      end: ['Too late.'],
      '': ['Whole form.'],
    });
  });

  it('keeps only the fields the form has', () => {
    const isField = (key: string): key is 'end' => key === 'end';
    expect(issuesByField(issues, isField)).toEqual({ end: ['Too late.'] });
  });
});
