// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { outputStream, serviceOf, stderr, stdout } from '../testing';
import { MAX_OUTPUT_LINES } from '../utils/output-lines';
import { ServiceCard } from './service-card';

const OUTPUT = 'GET /api/workspaces/ws1/services/web/output';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function openLog(stream = outputStream(), service = serviceOf({ status: 'running', http: 43121 })) {
  const { requests } = stubFetch({ [OUTPUT]: () => stream.response() });
  renderAt(<ServiceCard workspaceId="ws1" service={service} initialLogs />);
  await waitFor(() => expect(screen.getByTestId('service-log').dataset.state).toBe('live'));
  return { stream, requests };
}

/** Output is applied in batches: wait for the next one. */
const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 80)));
const lines = () => screen.getByTestId('service-log-lines');

describe('the service log', () => {
  it('renders ANSI colours as styled spans, stderr apart, then the exit code', async () => {
    const { stream } = await openLog();
    stream.send(stdout('\u001b[32mready\u001b[0m on \u001b[1mport 43121\u001b[0m\n'), stderr('deprecated\n'));
    await settle();
    const [first, second] = Array.from(lines().children) as HTMLElement[];
    expect(first?.textContent).toBe('ready on port 43121');
    const green = Array.from(first?.querySelectorAll('span') ?? []).find(
      (span) => span.textContent === 'ready',
    );
    expect(green?.style.color).toBe('rgb(0, 187, 0)');
    const bold = Array.from(first?.querySelectorAll('span') ?? []).find(
      (span) => span.textContent === 'port 43121',
    );
    expect(bold?.style.fontWeight).toBe('600');
    expect(first?.textContent).not.toContain('\u001b');
    expect(second?.dataset.stream).toBe('stderr');

    stream.send({ type: 'exit', exitCode: 3, timestamp: '2026-11-23T10:31:00.000Z' });
    stream.done();
    await waitFor(() => expect(screen.getByTestId('service-log').dataset.state).toBe('ended'));
    expect(screen.getByTestId('service-log-exit').textContent).toContain('exited with code 3');
  });

  it('shows markup in the output as text, never as elements', async () => {
    const { stream } = await openLog();
    stream.send(stdout('\u001b[31m<img src=x onerror=alert(1)>\u001b[0m <script>alert(2)</script>\n'));
    await settle();
    expect(lines().querySelector('img')).toBeNull();
    expect(lines().querySelector('script')).toBeNull();
    expect(lines().textContent).toBe('<img src=x onerror=alert(1)> <script>alert(2)</script>');
  });

  it(`keeps the last ${MAX_OUTPUT_LINES.toLocaleString('en')} lines and says how many were dropped`, async () => {
    const { stream } = await openLog();
    const total = MAX_OUTPUT_LINES + 250;
    const text = Array.from({ length: total }, (_, i) => `line ${i}\n`).join('');
    // In pieces of at most 16,384 characters, as the server stores them.
    for (let start = 0; start < text.length; start += 16_384)
      stream.send(stdout(text.slice(start, start + 16_384)));
    await settle();
    await waitFor(() => expect(lines().children).toHaveLength(MAX_OUTPUT_LINES));
    expect(lines().firstElementChild?.textContent).toBe('line 250');
    expect(lines().lastElementChild?.textContent).toBe(`line ${total - 1}`);
    expect(screen.getByTestId('service-log-dropped').textContent).toContain('250 earlier lines');
  });

  it('pauses following when scrolled up, and resumes on request', async () => {
    const { stream } = await openLog();
    const box = screen.getByRole('log');
    Object.defineProperty(box, 'scrollHeight', { configurable: true, value: 2_000 });
    Object.defineProperty(box, 'clientHeight', { configurable: true, value: 256 });
    stream.send(stdout('a\n'));
    await settle();
    expect(box.scrollTop).toBe(2_000);
    box.scrollTop = 100;
    fireEvent.scroll(box);
    expect(screen.getByTestId('service-log').dataset.following).toBe('false');
    stream.send(stdout('b\n'));
    await settle();
    expect(box.scrollTop).toBe(100);
    fireEvent.click(screen.getByTestId('service-log-resume'));
    expect(box.scrollTop).toBe(2_000);
    expect(screen.getByTestId('service-log').dataset.following).toBe('true');
  });

  it('says so when the stream is cut off before [DONE], and reconnects with a fresh replay', async () => {
    const first = outputStream();
    const second = outputStream();
    const streams = [first, second];
    const { requests } = stubFetch({ [OUTPUT]: () => streams.shift()?.response() });
    renderAt(<ServiceCard workspaceId="ws1" service={serviceOf({ status: 'running' })} initialLogs />);
    await waitFor(() => expect(screen.getByTestId('service-log').dataset.state).toBe('live'));
    first.send(stdout('before\n'));
    first.cut();
    await waitFor(() => expect(screen.getByTestId('service-log').dataset.state).toBe('failed'));
    expect(screen.getByRole('alert').textContent).toContain('cut off');
    fireEvent.click(screen.getByTestId('service-log-reconnect'));
    await waitFor(() => expect(screen.getByTestId('service-log').dataset.state).toBe('live'));
    second.send(stdout('before\n'), stdout('after\n'));
    await settle();
    expect(Array.from(lines().children).map((line) => line.textContent)).toEqual(['before', 'after']);
    expect(requests.filter((request) => request.url.endsWith('/output'))).toHaveLength(2);
  });
});
