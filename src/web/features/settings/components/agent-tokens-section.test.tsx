// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentToken } from '@/contracts/coordination';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { AgentTokensSection } from './agent-tokens-section';

/** The server's tokens, answered as /api/tokens answers them. */
let tokens: AgentToken[];
let requests: StubRequest[];

beforeEach(() => {
  tokens = [{ id: 't-1', name: 'CI bot', createdAt: '2026-11-01T10:00:00.000Z' }];
  ({ requests } = stubFetch({
    'GET /api/tokens': () => ({ tokens }),
    'POST /api/tokens': (request: StubRequest) => {
      const { name } = request.body as { name: string };
      if (!name.trim()) {
        return new Response(
          JSON.stringify({
            error: 'VALIDATION_ERROR',
            message: 'Invalid input',
            fields: { name: ['Name is required'] },
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        );
      }
      const token = { id: 't-2', name: name.trim(), createdAt: '2026-11-02T10:00:00.000Z' };
      tokens = [...tokens, token];
      return new Response(
        JSON.stringify({ id: token.id, name: token.name, token: 'acat_secret-shown-once' }),
        {
          status: 201,
          headers: { 'content-type': 'application/json' },
        },
      );
    },
    'DELETE /api/tokens/t-1': () => {
      tokens = tokens.filter((t) => t.id !== 't-1');
      return new Response(null, { status: 204 });
    },
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const rows = () => screen.queryAllByTestId('token-row').map((row) => row.querySelector('p')?.textContent);

describe('Settings → Agent tokens', () => {
  it('lists tokens, creates one whose secret is shown once and copied, and revokes one', async () => {
    renderAt(<AgentTokensSection />);
    await waitFor(() => expect(rows()).toEqual(['CI bot']));

    fireEvent.change(screen.getByTestId('token-name'), { target: { value: 'Claude Code' } });
    fireEvent.click(screen.getByTestId('create-token'));
    expect(await screen.findByTestId('new-token-secret')).toHaveProperty(
      'textContent',
      'acat_secret-shown-once',
    );
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'Claude Code' });
    await waitFor(() => expect(rows()).toEqual(['CI bot', 'Claude Code']));
    // The list never carries a secret.
    expect(screen.getByTestId('token-list').textContent).not.toContain('acat_');

    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    fireEvent.click(screen.getByTestId('copy-token'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('acat_secret-shown-once'));

    fireEvent.click(screen.getByText('Done'));
    expect(screen.queryByTestId('new-token')).toBeNull();

    const ciBot = screen.getAllByTestId('token-row')[0] as HTMLElement;
    fireEvent.click(within(ciBot).getByTestId('revoke-token'));
    fireEvent.click(await screen.findByTestId('confirm-revoke'));
    await waitFor(() => expect(rows()).toEqual(['Claude Code']));
    expect(requests.some((r) => r.method === 'DELETE' && r.url === '/api/tokens/t-1')).toBe(true);
  });

  it('shows the server’s word on a bad name', async () => {
    renderAt(<AgentTokensSection />);
    await waitFor(() => expect(rows()).toEqual(['CI bot']));
    fireEvent.click(screen.getByTestId('create-token'));
    expect(await screen.findByText('Name is required')).toBeTruthy();
    expect(screen.queryByTestId('new-token')).toBeNull();
  });
});
