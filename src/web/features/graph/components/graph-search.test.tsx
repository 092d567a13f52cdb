// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GraphSearch } from './graph-search';

afterEach(() => cleanup());

const files = ['src/auth.ts', 'src/oauth.ts', 'src/db.ts'];

describe('GraphSearch', () => {
  it('suggests matching files as one types; Enter picks the best one', () => {
    const onPick = vi.fn();
    render(<GraphSearch files={files} onPick={onPick} />);
    const input = screen.getByTestId('graph-search');
    fireEvent.change(input, { target: { value: 'auth' } });
    expect(screen.getAllByTestId('graph-search-match').map((m) => m.textContent)).toEqual([
      'src/auth.ts',
      'src/oauth.ts',
    ]);
    fireEvent.submit(input.closest('form') as HTMLFormElement);
    expect(onPick).toHaveBeenCalledWith('src/auth.ts');
    expect(screen.queryAllByTestId('graph-search-match')).toHaveLength(0);
  });

  it('picks a clicked suggestion, and says when nothing matches', () => {
    const onPick = vi.fn();
    render(<GraphSearch files={files} onPick={onPick} />);
    const input = screen.getByTestId('graph-search');
    fireEvent.change(input, { target: { value: 'oauth' } });
    fireEvent.click(screen.getByText('src/oauth.ts'));
    expect(onPick).toHaveBeenCalledWith('src/oauth.ts');
    fireEvent.change(input, { target: { value: 'zzz' } });
    expect(screen.getByText('No file matches.')).toBeTruthy();
    fireEvent.submit(input.closest('form') as HTMLFormElement);
    expect(onPick).toHaveBeenCalledTimes(1);
  });
});
