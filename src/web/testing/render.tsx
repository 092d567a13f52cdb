import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';

// A component test shares a loaded machine with the rest of the suite: `findBy…` and `waitFor` wait
// for what they look for, up to 15 s, instead of failing after testing-library's default second.
configure({ asyncUtilTimeout: 15_000 });

/**
 * Renders `ui` as the app would at `url` (matched by `path`), with a query client of its own and
 * no retries, so a failing request shows at once.
 */
export function renderAt(ui: ReactElement, { url = '/', path = '*' }: { url?: string; path?: string } = {}) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const view = render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path={path} element={ui} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...view, client };
}
