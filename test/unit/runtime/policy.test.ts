import { describe, expect, it } from 'vitest';
import {
  ACCESS_LEVELS,
  admits,
  canonicalSurface,
  HANDOFF_FIELDS,
  REFUSAL_REASONS,
  ROLE_POLICY,
  ROLES,
  SURFACE_ENGAGEMENT,
} from '../../../src/runtime/index.js';

describe('policy table', () => {
  it.each([
    ['explorer', 'exploration', 'read_only', [], 'synthesis', 'light'],
    ['planner', 'planning', 'scratch', ['synthesis'], 'plan', 'fresh'],
    ['builder', 'execution', 'mutating', ['plan'], 'artifact', 'fresh'],
    ['validator', 'validation', 'read_only', ['artifact', 'revision'], 'findings', 'strict'],
    ['resolver', 'resolution', 'mutating', ['findings'], 'revision', 'fresh'],
    ['general', null, 'mutating', [], null, 'none'],
    ['observer', null, 'read_only', [], null, 'none'],
  ] as const)(
    'row %s: mode %s, access %s, requires %j, produces %s, freshness %s',
    (role, mode, access, requires, produces, freshness) => {
      expect(ROLE_POLICY[role]).toEqual({ mode, access, requires, produces, freshness });
    },
  );

  it('has exactly the seven named roles', () => {
    expect(Object.keys(ROLE_POLICY).sort()).toEqual([...ROLES].sort());
  });

  it.each([
    ['read_only', 'read_only', true],
    ['read_only', 'scratch', false],
    ['read_only', 'mutating', false],
    ['scratch', 'read_only', true],
    ['scratch', 'scratch', true],
    ['scratch', 'mutating', false],
    ['mutating', 'read_only', true],
    ['mutating', 'scratch', true],
    ['mutating', 'mutating', true],
  ] as const)('access %s admits a %s tool: %s', (access, cls, expected) => {
    expect(admits(access, cls)).toBe(expected);
  });

  it('orders access levels from narrow to wide', () => {
    expect(ACCESS_LEVELS).toEqual(['read_only', 'scratch', 'mutating']);
  });

  it.each([
    ['synthesis', ['possibilities', 'tensions', 'unknowns', 'frames']],
    ['plan', ['assumptions', 'scope.in', 'scope.out', 'deferred', 'would_invalidate']],
    ['artifact', ['artifact', 'claims.does', 'claims.does_not', 'claims.scope']],
    ['findings', ['findings']],
    ['revision', ['artifact', 'remediation']],
  ] as const)('handoff %s requires %j', (kind, fields) => {
    expect(HANDOFF_FIELDS[kind]).toEqual(fields);
  });

  it.each([
    ['real-time-stream', 'agent'],
    ['sidebar-chat', 'assistant'],
  ])('surface %s takes engagement %s only', (surface, engagement) => {
    expect(SURFACE_ENGAGEMENT[surface]).toBe(engagement);
  });

  it('names every refusal reason with a stable code', () => {
    expect(REFUSAL_REASONS).toEqual([
      'mutating_tools_for_role',
      'missing_handoff',
      'incomplete_handoff',
      'no_builder_handoff',
      'validator_extra_context',
      'inherited_context',
      'same_session_transition',
      'tool_set_locked',
      'handoff_unverified',
      'engagement_surface',
      'invalid_override',
      'sandbox_unavailable',
    ]);
  });

  it('canonicalizes both surface spellings to the hyphenated one', () => {
    expect(canonicalSurface('real_time_stream')).toBe('real-time-stream');
    expect(canonicalSurface('real-time-stream')).toBe('real-time-stream');
  });
});
